import { HumanMessage } from "@langchain/core/messages";
import { OpsPilotError } from "../../contracts/errors.js";
import type { AgentStateType } from "../../graph/state.js";
import { planStart, type Planner } from "../runtime/run-plans.js";

/** The thread holds the message already: a queued message was taken, here or by another process. */
export class MessageAlreadyPostedError extends OpsPilotError {
  constructor(messageId: string) {
    super("message_posted", `Message ${messageId} is already in its thread.`, 409);
  }
}

/**
 * A new message with a given id, refused when the thread holds that id already: the check runs
 * under the thread's lease, so a queued message starts at most one run whichever process takes it.
 */
export function planMessage(threadId: string, message: string, messageId: string): Planner {
  const start = planStart(threadId, message);
  return (snapshot, thread) => {
    const messages = (snapshot.values as Partial<AgentStateType>).messages ?? [];
    if (messages.some((existing) => existing.id === messageId)) throw new MessageAlreadyPostedError(messageId);
    const plan = start(snapshot, thread);
    return { runId: plan.runId, input: { messages: [new HumanMessage({ id: messageId, content: message })] } };
  };
}
