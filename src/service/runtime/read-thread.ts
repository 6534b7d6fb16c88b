import type { StateSnapshot } from "@langchain/langgraph";
import type { PauseValue } from "../../contracts/pause/pause.js";
import { threadStanding, type ThreadStanding } from "../../graph/pause.js";
import type { AgentStateType } from "../../graph/state.js";

/** A thread's channels as read: a thread that never ran has no messages and no bookkeeping. */
export type ThreadValues = Pick<AgentStateType, "messages" | "run" | "batch" | "stop" | "turn"> &
  Partial<Pick<AgentStateType, "memory">>;

/**
 * A thread's latest checkpoint, typed: LangGraph's snapshot (`next`, `tasks`, `config` …) with
 * its `values` read through the state schema, the pause it waits on and where it stands.
 */
export interface ThreadSnapshot extends StateSnapshot {
  values: ThreadValues;
  /** The pause the thread waits on, if any (`pendingInterrupt`). */
  pause: PauseValue | undefined;
  /** Paused, unfinished (a run's process died mid-step) or idle, as far as the checkpoint tells. */
  standing: ThreadStanding;
}

/** What a thread is read from: the compiled graph, or anything that reads its state the same way. */
export interface ThreadReader {
  getState(config: { configurable: { thread_id: string } }): Promise<StateSnapshot>;
}

/** Reads a thread's latest state once, typed; the one place that turns `getState` into the state's types. */
export async function readThread(graph: ThreadReader, threadId: string): Promise<ThreadSnapshot> {
  const snapshot = await graph.getState({ configurable: { thread_id: threadId } });
  const stored = snapshot.values as Partial<AgentStateType>;
  const values: ThreadValues = {
    ...stored,
    messages: stored.messages ?? [],
    run: stored.run ?? null,
    batch: stored.batch ?? null,
    stop: stored.stop ?? null,
    turn: stored.turn ?? null,
  };
  const standing = threadStanding(snapshot);
  return { ...snapshot, values, pause: standing.kind === "paused" ? standing.interrupt : undefined, standing };
}
