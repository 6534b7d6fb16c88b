import type { MessageView } from "../../service/runtime/runtime.js";
import type { AssistantDelta, RunEvent } from "../../contracts/events.js";
import type { StopReason } from "../../contracts/stop-reasons.js";
import { compactJson, formatDuration, formatSpend, indent } from "./format.js";
import { describePause } from "../pause/pause.js";
import type { Style } from "./style.js";

/** Where a thread stands, so a resumed run keeps the call tags and the step count it had. */
export interface RenderSeed {
  /** Call ids proposed so far in the thread, in order (tags [1], [2], ... follow this order). */
  callIds: string[];
  /** Steps (model turns with tool calls) since the thread's last user message. */
  stepsSoFar: number;
}

/** The seed of a thread from its messages. */
export function seedFromMessages(messages: readonly MessageView[]): RenderSeed {
  const callIds: string[] = [];
  let stepsSoFar = 0;
  for (const message of messages) {
    if (message.role === "user") stepsSoFar = 0;
    if (message.role !== "assistant" || message.toolCalls.length === 0) continue;
    stepsSoFar += 1;
    callIds.push(...message.toolCalls.map((call) => call.callId));
  }
  return { callIds, stepsSoFar };
}

const STOP_COLORS: Record<StopReason, keyof Style> = {
  final_answer: "green",
  interrupted: "yellow",
  max_steps: "yellow",
  timeout: "yellow",
  loop_detected: "yellow",
  too_many_fails: "yellow",
  budget_exhausted: "yellow",
  cancelled: "yellow",
  error: "red",
};

/**
 * Turns run events into terminal lines as they arrive. Calls proposed together are listed
 * under one step before any of their results, so parallel calls are visible; every call
 * and its result share a tag like [3]. Answer fragments, when shown, are written as they
 * come; the complete message that follows them is then not printed again.
 */
export class EventRenderer {
  private readonly tags = new Map<string, number>();
  private step: number;
  private previous: RunEvent["type"] | undefined;
  /** Text written live since the last recorded event. */
  private streamed = "";

  constructor(
    private readonly style: Style,
    seed: RenderSeed = { callIds: [], stepsSoFar: 0 },
  ) {
    for (const callId of seed.callIds) this.tagOf(callId);
    this.step = seed.stepsSoFar;
  }

  /** Restarts the step count for a new run (a new question) on the same thread. */
  newRun(): void {
    this.step = 0;
  }

  /** The short tag of a call, e.g. "[3]". */
  readonly tagOf = (callId: string): string => {
    if (!this.tags.has(callId)) this.tags.set(callId, this.tags.size + 1);
    return `[${this.tags.get(callId)}]`;
  };

  /** The text one answer fragment writes (no line end: the next fragment continues it). */
  renderDelta(event: AssistantDelta): string {
    const lead = this.streamed === "" ? "\n" : "";
    this.streamed += event.text;
    return lead + event.text;
  }

  /** The lines one event prints (possibly none). */
  render(event: RunEvent): string[] {
    const streamed = this.streamed;
    this.streamed = "";
    let lines: string[];
    if (streamed === "") lines = this.linesFor(event);
    // The answer is already on screen: end its line and leave a blank one, as a printed message does.
    else if (event.type === "assistant_message" && event.content === streamed) lines = ["", ""];
    // Text written before tool calls, or a reply that differs from what streamed: end the line, then print as usual.
    else lines = ["", ...this.linesFor(event)];
    this.previous = event.type;
    return lines;
  }

  private linesFor(event: RunEvent): string[] {
    const { style } = this;
    switch (event.type) {
      case "run_started":
        return [style.dim(`▶ run ${event.runId.slice(0, 8)} on thread ${event.threadId}`)];
      case "tool_call": {
        const header = this.previous === "tool_call" ? [] : [style.bold(`step ${++this.step}`)];
        return [...header, `  → ${this.tagOf(event.callId)} ${style.cyan(event.tool)} ${compactJson(event.args)}`];
      }
      case "tool_result": {
        const mark = event.ok ? style.green("✓") : style.red("✗");
        const code = event.ok || !event.errorCode ? "" : ` ${style.red(event.errorCode)}`;
        const summary = event.summary ? ` · ${event.summary}` : "";
        // Fields a person filled in a pause are theirs: said so, as the page does ("filled by", never "approved by").
        const filled = event.decision?.kind === "params" && event.decision.action === "approve";
        const by = filled ? style.dim(` · filled by ${event.decision!.by}`) : "";
        return [
          `  ${mark} ${this.tagOf(event.callId)} ${event.tool}${code}${summary}${by} ${style.dim(`(${formatDuration(event.durationMs)})`)}`,
        ];
      }
      case "assistant_message":
        return ["", ...indent(event.content, ""), ""];
      case "loop_interrupt":
        return describePause(event, { style, tagOf: this.tagOf });
      case "run_finished": {
        const color = style[STOP_COLORS[event.stopReason]];
        const spend = formatSpend(event.tokens, event.costUsd);
        const meta = style.dim(
          ` · ${event.steps} step${event.steps === 1 ? "" : "s"} · ${formatDuration(event.durationMs)}${spend ? ` · ${spend}` : ""}`,
        );
        return [`${color(style.bold(`■ stop: ${event.stopReason}`))}${meta}`, `  thread: ${event.threadId}`];
      }
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  }
}
