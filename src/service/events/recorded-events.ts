import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunEvent, RunEventBody, StreamEvent } from "../../contracts/events.js";
import type { ArgsView } from "./args-view.js";
import { stepEvents } from "./step-events.js";

/**
 * Collects a run's recorded events until it finishes (tests, benchmarks and scripts that need
 * the whole run at once); answer fragments are left out, the complete message is among the events.
 */
export async function collectEvents(events: AsyncIterable<StreamEvent>): Promise<RunEvent[]> {
  const collected: RunEvent[] = [];
  for await (const event of events) if (event.type !== "assistant_delta") collected.push(event);
  return collected;
}

/** An observer of the recorded events only, for a channel that also carries answer fragments. */
export function observeRecorded(
  onEvent: ((event: RunEvent) => void) | undefined,
): ((event: StreamEvent) => void) | undefined {
  if (!onEvent) return undefined;
  return (event) => {
    if (event.type !== "assistant_delta") onEvent(event);
  };
}

/** What identifies an event of a message in the log: its kind and the call or message it is about. */
function eventKey(body: RunEventBody): string | undefined {
  if (body.type === "tool_call" || body.type === "tool_result") return `${body.type}:${body.callId}`;
  if (body.type === "assistant_message") return `assistant_message:${body.messageId}`;
  return undefined;
}

const NOTHING_TOLD = { messageIds: new Set<string>() };

/**
 * Ids of the thread's messages whose events the log already holds. A checkpoint is saved
 * before the events of its messages are appended, so a process that died between the two
 * left messages with no events; only those of the current run (after the last user message)
 * are looked for, so events pruned from older runs are never sent again.
 */
export function recordedMessageIds(
  messages: readonly BaseMessage[],
  logged: readonly RunEventBody[],
  viewArgs: ArgsView,
): Set<string> {
  const keys = new Set(logged.map(eventKey).filter((key) => key !== undefined));
  const lastUser = messages.findLastIndex((message) => HumanMessage.isInstance(message));
  const recorded = new Set<string>();
  messages.forEach((message, index) => {
    if (!message.id) return;
    const own = stepEvents(NOTHING_TOLD, { messages: [message] }, viewArgs).map(eventKey);
    if (index <= lastUser || own.length === 0 || own.some((key) => key !== undefined && keys.has(key)))
      recorded.add(message.id);
  });
  return recorded;
}
