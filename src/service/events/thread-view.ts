import type { ArgsView } from "./args-view.js";
import { toMessageView } from "./message-views.js";
import type { MessageView, ThreadView } from "../runtime/runtime.js";
import { taintOf } from "../../graph/calls/taint.js";
import type { ThreadSnapshot } from "../runtime/read-thread.js";
import type { ToolRegistry } from "../../tools/registry.js";

/**
 * A thread as clients see it: running while a lease is held, else paused with its pause,
 * unfinished when a run's process died mid-step, or idle; messages with validated, masked args,
 * and the untrusted tools it read, once it read any (its egress calls wait for a person).
 */
export function threadView(options: {
  threadId: string;
  /** The thread as read (`readThread`). */
  thread: ThreadSnapshot;
  /** Whether a run holds the thread's lease now. */
  running: boolean;
  viewArgs: ArgsView;
  /** The tools, for the thread's taint (which of them are trusted). */
  registry: ToolRegistry;
}): ThreadView {
  const { threadId, thread, running } = options;
  const { values: state, standing, pause: interrupt } = thread;
  const messages = state.messages
    .map((message) => toMessageView(message, options.viewArgs))
    .filter((view): view is MessageView => view !== undefined);
  const unfinished = !running && standing.kind === "unfinished";
  const taint = taintOf(state.messages, options.registry);
  return {
    threadId,
    status: running ? "running" : interrupt ? "interrupted" : "idle",
    messages,
    ...(interrupt && !running ? { interrupt } : {}),
    ...(unfinished ? { unfinished } : {}),
    ...(taint ? { taint } : {}),
  };
}
