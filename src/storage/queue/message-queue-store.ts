/** A message sent to a busy (or paused) thread, waiting for its turn (`multitaskStrategy` `enqueue` or `interrupt`). */
export interface QueuedMessage {
  /** Also the id of the user message it becomes, so a thread that holds it has taken it (exactly once). */
  messageId: string;
  threadId: string;
  /** `interrupt` runs before every `enqueue` and closes a pause it meets; `enqueue` waits its turn. */
  strategy: "enqueue" | "interrupt";
  message: string;
  /** Who sent it: the run acts as them. */
  userId: string;
  role: string;
  /** The run's requested limits (a `RunLimitsRequest`), when any. */
  options?: Record<string, unknown>;
  /** Epoch ms it was queued. */
  queuedAt: number;
  /** `pending` until its run takes it (then it is deleted); `failed` when its run was refused (`failure` says why). */
  status: "pending" | "failed";
  failure?: { code: string; message: string };
}

/** Messages waiting for their threads, in the database every process shares; a delivered one is deleted. */
export interface MessageQueueStore {
  /** Stores a pending message. */
  queueMessage(message: Omit<QueuedMessage, "status" | "failure">): Promise<void>;
  /** The thread's pending and failed messages in the order they run: interrupts first, then oldest first. */
  threadQueue(threadId: string): Promise<QueuedMessage[]>;
  /** Threads with pending messages. */
  queuedThreads(): Promise<string[]>;
  /** Forgets a delivered message (its thread holds it now), or marks it failed with the refusal's code and message. */
  finishQueuedMessage(messageId: string, outcome: { failure?: { code: string; message: string } }): Promise<void>;
  /** Forgets a message (refused at once, so the sender got the refusal instead). */
  removeQueuedMessage(messageId: string): Promise<void>;
}
