import { randomUUID } from "node:crypto";
import type { OpsPilotGraph } from "../../agent/graph.js";
import { PermissionDeniedError, ThreadUnfinishedError } from "../../contracts/errors.js";
import type { StreamEvent } from "../../contracts/events.js";
import type { QueuedMessage, Storage } from "../../storage/types.js";
import type { CancellationRegistry } from "../runtime/cancellation.js";
import type { MessageQueue } from "./message-queue.js";
import type { PostMessageRequest, PostOutcome } from "../runtime/runtime.js";
import type { RunLauncher } from "../runtime/run-launcher.js";
import { readThread } from "../runtime/read-thread.js";

/** How long `interrupt` waits for the stopped run to end before it answers "queued" instead of streaming. */
export const INTERRUPT_WAIT_MS = 15_000;

/** How often `interrupt` looks again at a thread whose run another process drives. */
const LEASE_POLL_MS = 50;

/** What posting a message with a strategy needs: the queue, and the launcher that starts runs (never the runtime). */
export interface PostMessageDeps {
  queue: MessageQueue;
  storage: Storage;
  graph: OpsPilotGraph;
  cancellations: CancellationRegistry;
  /** Admits and starts runs, and tells when this process's run of a thread ends. */
  runs: Pick<RunLauncher, "admit" | "startRun" | "runOf">;
  /** Overrides `INTERRUPT_WAIT_MS` (tests). */
  interruptWaitMs?: number;
}

/**
 * Posts a message by its `multitaskStrategy`: `reject` starts it or refuses (409) as a plain
 * start does; `enqueue` stores it and starts it at once when it is the thread's next and the
 * thread is free, else answers its place in the queue; `interrupt` stores it first in line,
 * cancels the running run (in any process) and, once that run has ended, starts it, closing a
 * pause it finds (its calls rejected as "superseded by a new message").
 */
export async function postMessage(deps: PostMessageDeps, request: PostMessageRequest): Promise<PostOutcome> {
  const strategy = request.multitaskStrategy ?? "reject";
  switch (strategy) {
    case "reject":
      return { kind: "started", events: await deps.runs.startRun(request) };
    case "enqueue":
      await deps.runs.admit(request);
      return deliverQueued(deps, queuedOf(request, "enqueue"), async () => undefined);
    case "interrupt": {
      if (request.user.role === "viewer")
        throw new PermissionDeniedError(
          'A viewer may not interrupt a run or close a pause; send the message with "enqueue" to run it after them.',
        );
      await deps.runs.admit(request);
      // A running run's checkpoint has tasks too: only a thread no run holds is unfinished.
      const { standing } = await readThread(deps.graph, request.threadId);
      if (standing.kind === "unfinished" && !(await deps.storage.leaseHolder(request.threadId)))
        throw new ThreadUnfinishedError(request.threadId);
      return deliverQueued(deps, queuedOf(request, "interrupt"), () => stopRun(deps, request.threadId));
    }
    default: {
      const _exhaustive: never = strategy;
      return _exhaustive;
    }
  }
}

/**
 * Stores the message and tries to start it here; `beforeWait` runs before each wait (stops the
 * run in the way, for `interrupt`), which only `interrupt` does, until its deadline.
 */
async function deliverQueued(
  deps: PostMessageDeps,
  message: QueuedMessage,
  beforeWait: () => Promise<unknown>,
): Promise<PostOutcome> {
  const { queue, storage } = deps;
  await queue.add(message);
  const release = queue.hold(message.messageId);
  const interrupting = message.strategy === "interrupt";
  const deadline = Date.now() + (deps.interruptWaitMs ?? INTERRUPT_WAIT_MS);
  try {
    for (;;) {
      const delivery = await queue.deliverOwn(message);
      switch (delivery.kind) {
        case "started":
          return { kind: "started", events: delivery.events };
        case "refused":
          // Refused at once: the sender gets the refusal, and nothing stays queued.
          await storage.messageQueue.removeQueuedMessage(message.messageId);
          throw delivery.error;
        case "taken":
          return { kind: "queued", messageId: message.messageId, position: 0 };
        case "waiting":
          break;
        default: {
          const _exhaustive: never = delivery;
          return _exhaustive;
        }
      }
      if (!interrupting || Date.now() > deadline) {
        return { kind: "queued", messageId: message.messageId, position: await positionOf(queue, message) };
      }
      await beforeWait();
      const local = deps.runs.runOf(message.threadId);
      await (local ? Promise.race([local, sleep(deadline - Date.now())]) : sleep(LEASE_POLL_MS));
    }
  } finally {
    release();
    // Another sender's message may have waited behind this one while it was held.
    queue.kick(message.threadId);
  }
}

/** Cancels the thread's running run, here or in the process that holds its lease, as Stop does. */
async function stopRun(deps: PostMessageDeps, threadId: string): Promise<void> {
  if (!deps.cancellations.cancel(threadId)) await deps.storage.requestCancel(threadId);
}

/** The message's place among the thread's pending messages, from 1; 0 once it has started. */
async function positionOf(queue: MessageQueue, message: QueuedMessage): Promise<number> {
  const pending = (await queue.waiting(message.threadId)).filter((queued) => queued.status === "pending");
  return pending.findIndex((queued) => queued.messageId === message.messageId) + 1;
}

/** Resolves after `ms` (at once when not positive), without keeping the process alive. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());
}

function queuedOf(request: PostMessageRequest, strategy: QueuedMessage["strategy"]): QueuedMessage {
  return {
    messageId: randomUUID(),
    threadId: request.threadId,
    strategy,
    message: request.message,
    userId: request.user.id,
    role: request.user.role,
    ...(request.options ? { options: request.options as Record<string, unknown> } : {}),
    queuedAt: Date.now(),
    status: "pending",
  };
}

/** How often a sender waiting for its queued message looks at the thread again. */
const AWAIT_POLL_MS = 250;

/**
 * Waits until the sender's queued message is the thread's next and the thread is free, then
 * starts it here. Undefined when another process started it, or when `signal` aborts (the
 * message stays queued); a refusal its turn met is thrown.
 */
export async function awaitQueued(
  deps: PostMessageDeps,
  request: { threadId: string; messageId: string; userId: string; signal?: AbortSignal },
): Promise<AsyncIterable<StreamEvent> | undefined> {
  const { queue } = deps;
  const release = queue.hold(request.messageId);
  try {
    while (!request.signal?.aborted) {
      const message = (await queue.waiting(request.threadId)).find((queued) => queued.messageId === request.messageId);
      if (!message || message.userId !== request.userId) return undefined;
      const delivery = await queue.deliverOwn(message);
      switch (delivery.kind) {
        case "started":
          return delivery.events;
        case "taken":
          return undefined;
        case "refused":
          await deps.storage.messageQueue.finishQueuedMessage(request.messageId, {
            failure: { code: delivery.error.code, message: delivery.error.message },
          });
          throw delivery.error;
        case "waiting":
          break;
        default: {
          const _exhaustive: never = delivery;
          return _exhaustive;
        }
      }
      const local = deps.runs.runOf(request.threadId);
      await (local ? Promise.race([local, sleep(AWAIT_POLL_MS)]) : sleep(AWAIT_POLL_MS));
    }
    return undefined;
  } finally {
    release();
    queue.kick(request.threadId);
  }
}
