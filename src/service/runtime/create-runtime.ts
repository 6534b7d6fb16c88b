import { randomUUID } from "node:crypto";
import type { RunUser } from "../../contracts/user.js";
import { planRecover, planResume } from "./run-plans.js";
import { threadView } from "../events/thread-view.js";
import type { Runtime, StartRunRequest, ThreadView } from "./runtime.js";
import type { RuntimeDeps } from "./settings.js";
import { maskValue } from "../../execution/sanitize.js";
import { endPause } from "../approvals/end-pause.js";
import { exportRecords } from "../events/records-export.js";
import { drainRuns } from "./shutdown.js";
import { listThreads } from "../events/thread-list.js";
import { createMessageQueue } from "../queue/message-queue.js";
import { awaitQueued, postMessage, type PostMessageDeps } from "../queue/post-message.js";
import { queuedViews } from "../queue/queued-views.js";
import { PermissionDeniedError } from "../../contracts/errors.js";
import type { QueuedMessage } from "../../storage/types.js";
import { createApprovalExpiry } from "../approvals/expiry.js";
import {
  continuingUser,
  expiryNotice,
  planExpiry,
  refuseExpired,
  type ExpiryChoice,
} from "../approvals/expiry-plan.js";
import { createRunLauncher } from "./run-launcher.js";
import { readThread } from "./read-thread.js";
import { messageIdsOf } from "../events/step-events.js";

/**
 * The runtime the CLI, the HTTP API and tests drive opspilot through. Every run starts in the
 * launcher; the queue, the approval expiry and posting call the launcher, never the runtime.
 */
export function createRuntime(deps: RuntimeDeps): Runtime {
  const { graph, storage, cancellations } = deps;
  const runs = createRunLauncher({ ...deps, afterRun: (threadId) => queue.kick(threadId) });
  const { checkOwner, viewArgs, logger } = runs;

  /** The thread's state for someone who may read it: its owner, or another approver of the pause it waits on. */
  async function readableThread(threadId: string, user: RunUser) {
    await checkOwner(threadId, user, "answer");
    return readThread(graph, threadId);
  }

  const expiry = createApprovalExpiry({
    store: storage.pauseDeadlines,
    logger,
    onExpired: deps.onApprovalExpired,
    expirer: {
      async expire(deadline) {
        let planned: Extract<ExpiryChoice, { kind: "expire" }> | undefined;
        const events = await runs.launch({
          threadId: deadline.threadId,
          user: continuingUser(deadline, deps.currentRoles),
          entry: "continue",
          expiring: true,
          use: "expire",
          plan: planExpiry({ deadline, now: Date.now, onExpire: (choice) => (planned = choice) }),
        });
        return { events, notice: expiryNotice(deadline.threadId, planned!) };
      },
    },
  });

  const queue = createMessageQueue({
    store: storage.messageQueue,
    graph,
    logger,
    runs: { startQueued: (message) => runs.startRun(queuedRunRequest(message)) },
  });

  /** A queued message's run, as its sender; refused when the sender no longer holds the role it was sent with. */
  function queuedRunRequest(message: QueuedMessage): StartRunRequest {
    const roles = deps.currentRoles?.(message.userId);
    if (roles && !roles.includes(message.role))
      throw new PermissionDeniedError(
        `${message.userId} no longer holds the role ${message.role} this message was sent with; it was not run.`,
      );
    return {
      threadId: message.threadId,
      message: message.message,
      user: { id: message.userId, role: message.role },
      ...(message.options ? { options: message.options } : {}),
      messageId: message.messageId,
      supersede: message.strategy === "interrupt",
    };
  }

  const posting: PostMessageDeps = { queue, storage, graph, cancellations, runs };
  let drained: Promise<void> | undefined;

  /** Hands this process's runs over at their next checkpoint (cancels what the grace does not see end); once. */
  function drain(): Promise<void> {
    drained ??= (async () => {
      const runsDrained = drainRuns({ runs, cancellations, graceMs: deps.shutdownGraceMs ?? 0 });
      // No queued message or expired pause starts here once draining has begun: the next process takes them.
      await Promise.all([queue.close(), expiry.close(), runsDrained]);
    })();
    return drained;
  }

  return {
    async createThread(user) {
      const threadId = randomUUID();
      await storage.createThread(threadId, user.id);
      return threadId;
    },

    startRun: (request) => runs.startRun(request),

    postMessage: (request) => postMessage(posting, request),

    async awaitQueued(request) {
      await checkOwner(request.threadId, request.user);
      return awaitQueued(posting, { ...request, userId: request.user.id });
    },

    serveQueue: () => queue.serve(),

    sweepQueue: () => queue.sweep(),

    sweepApprovalExpiry: async () => void (await expiry.sweep()),

    resumeRun: (request) =>
      runs.launch({
        threadId: request.threadId,
        user: request.user,
        runOptions: request.options,
        entry: "continue",
        use: "answer",
        plan: refuseExpired(
          request.threadId,
          planResume({
            threadId: request.threadId,
            resume: request.resume,
            user: request.user,
            registry: deps.registry,
            currentRoles: deps.currentRoles,
          }),
        ),
      }),

    recoverRun: (threadId, user) =>
      runs.launch({ threadId, user, entry: "continue", recovering: true, plan: planRecover(threadId) }),

    async cancelRun(threadId, user) {
      await checkOwner(threadId, user);
      if (cancellations.cancel(threadId) || (await storage.requestCancel(threadId))) return true;
      const ended = await endPause({ graph, storage, threadId, viewArgs, onEvent: deps.onEvent });
      // Messages queued behind the pause may run now.
      if (ended) queue.kick(threadId);
      return ended;
    },

    async getThread(threadId, user): Promise<ThreadView> {
      const thread = await readableThread(threadId, user);
      const running = (await storage.leaseHolder(threadId)) !== undefined;
      const view = threadView({ threadId, thread, running, viewArgs, registry: deps.registry });
      const queued = queuedViews(await queue.waiting(threadId, messageIdsOf(thread.values.messages)));
      return queued.length > 0 ? { ...view, queued } : view;
    },

    listThreads: (user, { limit, shared }) =>
      listThreads({ storage, graph, user, limit, sharedOwners: shared ? deps.sharedOwners : undefined }),

    async getResult(threadId, user, callId) {
      await checkOwner(threadId, user, "answer");
      const stored = await storage.getResult(threadId, callId);
      // Results are stored masked; masking again on read covers rows written before that.
      return stored ? { callId, tool: stored.tool, result: maskValue(stored.raw) } : undefined;
    },

    async getRecords(threadId, user, page) {
      await checkOwner(threadId, user);
      return storage.recordsPage({ threadId, limit: page.limit, ...(page.after ? { after: page.after } : {}) });
    },

    exportRecords: (window) => exportRecords(storage, window),

    recordsSummary: (window) => storage.summary(window),

    async eventsAfter(threadId, user, afterSeq) {
      await checkOwner(threadId, user, "answer");
      return storage.eventsAfter(threadId, afterSeq);
    },

    drain,

    async close() {
      await drain();
      await storage.close();
    },
  };
}
