import { readThread } from "../runtime/read-thread.js";
import type { OpsPilotGraph } from "../../agent/graph.js";
import { OpsPilotError, ThreadBusyError, ThreadPausedError, ThreadUnfinishedError } from "../../contracts/errors.js";
import type { StreamEvent } from "../../contracts/events.js";
import type { MessageQueueStore, QueuedMessage } from "../../storage/types.js";
import { followedRuns } from "../events/followed-runs.js";
import type { Logger } from "../observability/logger.js";
import { MessageAlreadyPostedError } from "./queued-plan.js";

/** What trying to start a queued message came to. */
export type Delivery =
  | { kind: "started"; events: AsyncIterable<StreamEvent> }
  /** The thread is running, paused or unfinished, or another message comes first: it keeps waiting. */
  | { kind: "waiting" }
  /** The thread holds it already: it was started here or by another process. */
  | { kind: "taken" }
  /** Its run was refused (a quota, a role it no longer holds): it will not run. */
  | { kind: "refused"; error: OpsPilotError };

/** What the queue asks of the runtime: the one thing it cannot do itself. */
export interface QueuedRuns {
  /** Starts the message's run under the thread's lease, with its id (throws the runtime's refusals). */
  startQueued(message: QueuedMessage): Promise<AsyncIterable<StreamEvent>>;
}

/** What the queue needs. */
export interface MessageQueueDeps {
  store: MessageQueueStore;
  /** Reads a thread's messages, to tell which queued ones it took already. */
  graph: OpsPilotGraph;
  logger: Logger;
  runs: QueuedRuns;
}

/** Durable per-thread queues of messages sent with `enqueue` or `interrupt`, delivered in order, each once. */
export interface MessageQueue {
  /** Stores a message at its place in the thread's queue. */
  add(message: Omit<QueuedMessage, "status" | "failure">): Promise<void>;
  /** The thread's messages not yet in it (pending, then failed), marking those it took as delivered. */
  waiting(threadId: string, present?: ReadonlySet<string>): Promise<QueuedMessage[]>;
  /** Keeps this process's background delivery off a message its sender delivers itself; returns the release. */
  hold(messageId: string): () => void;
  /** Starts the message here when it is the thread's next and the thread is free. */
  deliverOwn(message: QueuedMessage): Promise<Delivery>;
  /** Looks for the thread's next message (after a run here ends); only while serving. */
  kick(threadId: string): void;
  /** Delivers every thread's waiting messages from now on: at once, and after each run here. */
  serve(): void;
  /** One pass over every thread's waiting messages (the `queue` job); rejects when the pass failed. */
  sweep(): Promise<void>;
  /** Stops delivering and waits for the pass under way. */
  close(): Promise<void>;
}

/**
 * The queue of `multitaskStrategy`. A message becomes the thread's user message under its own
 * id, and a run takes it only under the thread's lease after checking the thread does not hold
 * that id yet; so whichever process (sharing the database) delivers it, it runs exactly once,
 * and one that dies before its input was saved leaves it waiting. Only a serving process (the
 * HTTP server) delivers other senders' messages; any process delivers its own (`deliverOwn`).
 * The app's `queue` job sweeps on its clock for what a process that died left waiting.
 */
export function createMessageQueue(deps: MessageQueueDeps): MessageQueue {
  const { store, logger } = deps;
  const held = new Set<string>();
  const runs = followedRuns(logger);
  let pass: Promise<void> = Promise.resolve();
  let serving = false;
  let closed = false;

  async function presentIds(threadId: string): Promise<Set<string>> {
    const { messages } = (await readThread(deps.graph, threadId)).values;
    return new Set(messages.map((message) => message.id).filter((id): id is string => !!id));
  }

  async function waiting(threadId: string, present?: ReadonlySet<string>): Promise<QueuedMessage[]> {
    const queue = await store.threadQueue(threadId);
    if (queue.length === 0) return [];
    const ids = present ?? (await presentIds(threadId));
    // A run that repaired abandoned calls moved the message under this id (see abandoned-calls.ts).
    const taken = (message: QueuedMessage) =>
      ids.has(message.messageId) || ids.has(`${message.messageId}-after-repair`);
    for (const message of queue)
      if (message.status === "pending" && taken(message)) await store.finishQueuedMessage(message.messageId, {});
    return queue.filter((message) => !taken(message));
  }

  async function attempt(message: QueuedMessage): Promise<Delivery> {
    try {
      return { kind: "started", events: await deps.runs.startQueued(message) };
    } catch (error) {
      if (error instanceof MessageAlreadyPostedError) {
        await store.finishQueuedMessage(message.messageId, {});
        return { kind: "taken" };
      }
      if (
        error instanceof ThreadBusyError ||
        error instanceof ThreadPausedError ||
        error instanceof ThreadUnfinishedError
      )
        return { kind: "waiting" };
      if (error instanceof OpsPilotError && error.status < 500) return { kind: "refused", error };
      throw error;
    }
  }

  /** Reads a run's events to the end, then marks its message taken and looks for the next one. */
  function follow(threadId: string, events: AsyncIterable<StreamEvent>): void {
    runs.follow(events, "queued run failed", () => kick(threadId));
  }

  async function drain(threadId: string): Promise<void> {
    while (!closed) {
      const next = (await waiting(threadId)).find((message) => message.status === "pending");
      if (!next || held.has(next.messageId)) return;
      const delivery = await attempt(next);
      switch (delivery.kind) {
        case "started":
          return follow(threadId, delivery.events);
        case "waiting":
          return;
        case "taken":
          continue;
        case "refused":
          await store.finishQueuedMessage(next.messageId, {
            failure: { code: delivery.error.code, message: delivery.error.message },
          });
          continue;
        default: {
          const _exhaustive: never = delivery;
          return _exhaustive;
        }
      }
    }
  }

  function queuePass(work: () => Promise<void>): void {
    pass = pass.then(work).catch((error: unknown) => logger.error("queued message not delivered", error));
  }

  function kick(threadId: string): void {
    if (serving && !closed) queuePass(() => drain(threadId));
  }

  async function sweepOnce(): Promise<void> {
    for (const threadId of await store.queuedThreads()) await drain(threadId);
  }

  /** Passes never overlap; a failed one is the caller's to report, and the next pass goes on. */
  function sweep(): Promise<void> {
    if (closed) return Promise.resolve();
    const next = pass.then(sweepOnce);
    pass = next.catch(() => undefined);
    return next;
  }

  return {
    add: (message) => store.queueMessage(message),
    waiting,
    hold(messageId) {
      held.add(messageId);
      return () => held.delete(messageId);
    },
    async deliverOwn(message) {
      const queue = await waiting(message.threadId);
      const own = queue.find((queued) => queued.messageId === message.messageId);
      if (!own) return { kind: "taken" };
      if (own.failure) return { kind: "refused", error: new OpsPilotError(own.failure.code, own.failure.message, 409) };
      const next = queue.find((queued) => queued.status === "pending");
      return next?.messageId === message.messageId ? attempt(message) : { kind: "waiting" };
    },
    kick,
    serve() {
      if (serving || closed) return;
      serving = true;
      sweep().catch((error: unknown) => logger.error("queued message not delivered", error));
    },
    sweep,
    async close() {
      closed = true;
      await pass;
    },
  };
}
