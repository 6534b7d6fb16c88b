import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { proposedCalls, type ProposedCall } from "../../contracts/calls.js";

/** A broken pairing: which ids are unanswered, answered twice, or orphaned. */
export interface PairingReport {
  unanswered: string[];
  duplicated: string[];
  orphaned: string[];
}

/**
 * Checks design §2.1 over a message list: every proposed call id has exactly one
 * ToolMessage, and every ToolMessage answers a call proposed before it.
 */
export function checkPairing(messages: readonly BaseMessage[]): PairingReport {
  const proposed = new Set<string>();
  const answered = new Map<string, number>();
  const orphaned: string[] = [];
  for (const message of messages) {
    for (const call of proposedCalls(message)) proposed.add(call.id);
    if (ToolMessage.isInstance(message)) {
      if (!proposed.has(message.tool_call_id)) orphaned.push(message.tool_call_id);
      answered.set(message.tool_call_id, (answered.get(message.tool_call_id) ?? 0) + 1);
    }
  }
  return {
    unanswered: [...proposed].filter((id) => !answered.has(id)),
    duplicated: [...answered].filter(([, count]) => count > 1).map(([id]) => id),
    orphaned,
  };
}

/** Whether a pairing report is clean. */
export function pairingHolds(report: PairingReport): boolean {
  return report.unanswered.length === 0 && report.duplicated.length === 0 && report.orphaned.length === 0;
}

/** The latest assistant message, if any. */
export function lastAssistant(messages: readonly BaseMessage[]): AIMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (AIMessage.isInstance(messages[i])) return messages[i] as AIMessage;
  return undefined;
}

/** Ids of ToolMessages already in the history. */
function answeredIds(messages: readonly BaseMessage[]): Set<string> {
  return new Set(messages.filter((m) => ToolMessage.isInstance(m)).map((m) => (m as ToolMessage).tool_call_id));
}

/** Calls proposed in `messages` that no ToolMessage answers yet, in order. */
export function unansweredCalls(messages: readonly BaseMessage[]): ProposedCall[] {
  const answered = answeredIds(messages);
  return messages.flatMap((message) => proposedCalls(message)).filter((call) => !answered.has(call.id));
}
