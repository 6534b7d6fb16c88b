import type { RunEvent } from "../../contracts/events.js";

/** The events of an incident's thread that become replies: pauses, writes' results and run ends. */
export type ThreadUpdate = Extract<RunEvent, { type: "loop_interrupt" | "tool_result" | "run_finished" }>;

/** An event worth a reply, with the key that names it once and the update's name in logs. */
export interface UpdateKey {
  event: ThreadUpdate;
  key: string;
  update: "pause" | "action" | "answer";
}

/** The reply `event` asks for: a pause by its id, a write's result by its call, a run's end (not a pause) by its run. */
export function updateKeyOf(event: RunEvent, isWrite: (tool: string) => boolean): UpdateKey | undefined {
  switch (event.type) {
    case "loop_interrupt":
      return { event, key: `pause\n${event.threadId}\n${event.interruptId}`, update: "pause" };
    case "tool_result":
      // A write that was skipped or cancelled never acted; one that ran, failed or was turned down did.
      if (!isWrite(event.tool) || event.errorCode === "skipped" || event.errorCode === "cancelled") return undefined;
      return { event, key: `action\n${event.threadId}\n${event.callId}`, update: "action" };
    case "run_finished":
      if (event.stopReason === "interrupted") return undefined;
      return { event, key: `end\n${event.threadId}\n${event.runId}`, update: "answer" };
    default:
      return undefined;
  }
}

/** Whether the thread recorded the same update before `event` (a recovered run records its pause or end again). */
export function isDuplicate(recorded: readonly RunEvent[], event: ThreadUpdate): boolean {
  return recorded.some((earlier) => earlier.seq < event.seq && same(earlier, event));
}

function same(earlier: RunEvent, event: ThreadUpdate): boolean {
  switch (event.type) {
    case "loop_interrupt":
      return earlier.type === "loop_interrupt" && earlier.interruptId === event.interruptId;
    case "tool_result":
      return earlier.type === "tool_result" && earlier.callId === event.callId;
    case "run_finished":
      return earlier.type === "run_finished" && earlier.runId === event.runId && earlier.stopReason !== "interrupted";
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
}

/** The last assistant text the run recorded before its end. */
export function finalAnswerOf(recorded: readonly RunEvent[], end: ThreadUpdate): string {
  const last = recorded.findLast(
    (event) => event.type === "assistant_message" && event.runId === end.runId && event.seq < end.seq,
  );
  return last?.type === "assistant_message" ? last.content : "";
}
