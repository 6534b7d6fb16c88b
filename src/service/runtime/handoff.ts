import type { OpsPilotGraph } from "../../agent/graph.js";

/** A node of the graph, as `interruptBefore` names it. */
type NodeName = keyof OpsPilotGraph["nodes"] & string;

/**
 * Stops a run at its next checkpoint so that another process can continue it: the graph is
 * streamed with `interruptBefore` set to this list, empty until a hand-over is asked, then
 * naming every node. LangGraph checks the list before each step, after the previous step's
 * checkpoint is saved, so the step in progress ends as usual and the next one is left for the
 * process that recovers the thread (its `takeover` job, or `POST .../recover`).
 */
export class RunHandoff {
  /** The run's `interruptBefore`: filled by `request`, emptied by `withdraw`. */
  readonly interruptBefore: NodeName[] = [];
  private readonly nodes: NodeName[];

  constructor(graph: Pick<OpsPilotGraph, "nodes">) {
    this.nodes = (Object.keys(graph.nodes) as NodeName[]).filter((name) => !name.startsWith("__"));
  }

  /** Asks the run to stop before its next step (idempotent). */
  request(): void {
    if (this.interruptBefore.length === 0) this.interruptBefore.push(...this.nodes);
  }

  /** Lets the run go through every step again (a cancel must reach `finish_run`). */
  withdraw(): void {
    this.interruptBefore.length = 0;
  }

  /** Whether a hand-over was asked and not withdrawn. */
  get requested(): boolean {
    return this.interruptBefore.length > 0;
  }
}
