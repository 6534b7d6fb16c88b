import { HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { unansweredCalls } from "./pairing.js";
import { notExecuted } from "../../execution/tool-message.js";

/**
 * When a new user message arrives on a thread whose previous run stopped mid-batch outside
 * opspilot's runtime (a LangGraph server run that was cancelled or failed), answers the
 * abandoned calls with `cancelled` results placed before the new message, so pairing
 * holds before the next model call. Returns the state update and the repaired history.
 */
export function repairAbandonedCalls(
  messages: readonly BaseMessage[],
  maxChars: number,
): { update: BaseMessage[]; history: BaseMessage[] } | undefined {
  const last = messages[messages.length - 1];
  if (!last || !HumanMessage.isInstance(last)) return undefined;
  const earlier = messages.slice(0, -1);
  const abandoned = unansweredCalls(earlier);
  if (abandoned.length === 0) return undefined;
  const results = notExecuted(
    abandoned,
    { errorCode: "cancelled", message: "Not executed: the run that proposed this call stopped before it ran." },
    maxChars,
  );
  // The reducer keeps a re-added id in its old place, so the message moves under a new id.
  const moved = new HumanMessage({ id: `${last.id ?? "user"}-after-repair`, content: last.content });
  const update = [...(last.id ? [new RemoveMessage({ id: last.id })] : []), ...results, moved];
  return { update, history: [...earlier, ...results, moved] };
}
