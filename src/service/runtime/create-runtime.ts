import { randomUUID } from "node:crypto";
import { recursionLimitFor } from "../../graph/config.js";
import { limitsOf, OPEN_LIMIT_POLICY, type RunOptionsRequest } from "../../graph/limits.js";
import { checkQuotas, type QuotaEntry } from "./quotas.js";
import type { AgentStateType } from "../../graph/state.js";
import type { RunUser } from "../../contracts/user.js";
import { assertMessageFits, ThreadBusyError } from "../../contracts/errors.js";
import { createThreadAccess, type ThreadUse } from "./thread-access.js";
import { planRecover, planResume, planStart, type Planner, type RunPlan } from "./run-plans.js";
import { runOptionsFor } from "./run-options.js";
import { threadView } from "../events/thread-view.js";
import type { ResumeRunRequest, Runtime, StartRunRequest, ThreadView } from "./runtime.js";
import { consoleLogger } from "../observability/logger.js";
import { driveRun } from "../events/drive-run.js";
import { observeRecorded } from "../events/recorded-events.js";
import type { RuntimeDeps } from "./settings.js";
import { EventChannel } from "../events/event-channel.js";
import type { StreamEvent } from "../../contracts/events.js";
import { maskValue } from "../../execution/sanitize.js";
import { endPause } from "../approvals/end-pause.js";
import { exportRecords } from "../events/records-export.js";
import { holdForRun, tryLease } from "./lease.js";
import { SHUTDOWN_CANCEL_MS, settleWithin } from "./shutdown.js";
import { makeArgsView } from "../events/args-view.js";
import { recordedMessageIds } from "../events/message-views.js";
import { listThreads, threadTitle } from "../events/thread-list.js";
import { createMessageQueue } from "../queue/message-queue.js";
import { planMessage } from "../queue/queued-plan.js";
import { awaitQueued, postMessage, type PostMessageDeps } from "../queue/post-message.js";
import { supersedePause } from "../approvals/supersede-pause.js";
import { queuedViews } from "../queue/queued-views.js";
import { threadStanding } from "../../graph/pause.js";
import { PermissionDeniedError } from "../../contracts/errors.js";
import type { PauseDeadline, QueuedMessage } from "../../storage/types.js";
import type { PauseEvent } from "../notices/pause-webhook-body.js";
import { createApprovalExpiry } from "../approvals/expiry.js";
import {
  continuingUser,
  expiryNotice,
  planExpiry,
  refuseExpired,
  type ExpiryChoice,
} from "../approvals/expiry-plan.js";

/** The runtime the CLI, the HTTP API and tests drive opspilot through. */
export function createRuntime(deps: RuntimeDeps): Runtime {
  const { graph, storage, cancellations } = deps;
  const logger = deps.logger ?? consoleLogger();
  const viewArgs = makeArgsView(deps.registry);
  const active = new Map<string, Promise<unknown>>();
  const policy = deps.limits ?? OPEN_LIMIT_POLICY;
  const optionsFor = runOptionsFor({ policy, defaults: deps.defaults });

  const access = createThreadAccess({ storage, graph, registry: deps.registry, sharedOwners: deps.sharedOwners });
  const checkOwner = (threadId: string, user: RunUser, use?: ThreadUse) => access.check(threadId, user, use);

  /** The thread's state for someone who may read it: its owner, or another approver of the pause it waits on. */
  async function readableSnapshot(threadId: string, user: RunUser) {
    await checkOwner(threadId, user, "answer");
    return graph.getState({ configurable: { thread_id: threadId } });
  }

  /**
   * Takes the thread's lease, then reads its state and lets `plan` check it: deciding on a
   * state read before the lease would let two processes both act on the same pause.
   */
  async function launch(options: {
    threadId: string;
    user: RunUser;
    runOptions?: RunOptionsRequest;
    /** Whether the run is new (counts against the runs quota) or continues one. */
    entry: QuotaEntry;
    /** A recovery sends the events a process that died left unsent. */
    recovering?: boolean;
    /** Close a pause the thread waits on (as superseded by `user`'s new message) before planning. */
    supersede?: boolean;
    /** The run goes on after its pause expired: a run already going, which no quota stops. */
    expiring?: boolean;
    /** What `user` wants of the thread: a resume may come from another approver of a four-eyes pause. */
    use?: ThreadUse;
    plan: Planner;
  }) {
    const { threadId } = options;
    const grant = await checkOwner(threadId, options.user, options.use);
    // Both refusals come before the lease, so a refused request leaves the thread as it was.
    const requested = optionsFor(options.user, options.runOptions);
    let runOptions = requested.options;
    if (!options.expiring)
      await checkQuotas({ usage: storage, quotas: deps.quotas ?? {}, userId: options.user.id, entry: options.entry });
    const lease = await tryLease(storage, threadId);
    if (!lease) throw new ThreadBusyError(threadId);
    let plan: RunPlan;
    let seen: Set<string>;
    try {
      let snapshot = await graph.getState({ configurable: { thread_id: threadId } });
      // Under the same lease as the new run, so no other run comes between the closed pause and the message.
      if (options.supersede && threadStanding(snapshot).kind === "paused") {
        await supersedePause({
          graph,
          storage,
          threadId,
          snapshot,
          user: options.user,
          viewArgs,
          onEvent: deps.onEvent,
        });
        snapshot = await graph.getState({ configurable: { thread_id: threadId } });
      }
      // Another approver answers for the owner, whose current roles bind the answer too; on a shared thread no person owns it.
      plan = options.plan(snapshot, { owner: grant.via === "shared" ? undefined : grant.owner });
      seen = options.recovering
        ? recordedMessageIds(
            (snapshot.values as AgentStateType).messages ?? [],
            await storage.eventsAfter(threadId, 0),
            viewArgs,
          )
        : messageIds(snapshot.values as AgentStateType);
      // A resume or a recovery, from any process, keeps the limits its run was started with.
      if (options.entry === "start") {
        if (Object.keys(requested.asked).length > 0) await storage.saveRunLimits(threadId, plan.runId, requested.asked);
      } else {
        const kept = limitsOf((await storage.runLimits(plan.runId)) ?? {});
        runOptions = optionsFor(options.user, options.runOptions, kept).options;
      }
    } catch (error) {
      await lease.release();
      throw error;
    }
    const configurable = { thread_id: threadId, run_id: plan.runId, ...runOptions };
    const recursionLimit = recursionLimitFor(runOptions);
    const channel = new EventChannel<StreamEvent>(observeRecorded(deps.onEvent));
    const { release } = holdForRun({ storage, threadId, lease, cancellations, logger });
    const config = { configurable, recursionLimit };
    let paused: PauseEvent | undefined;
    const run = driveRun({
      graph,
      storage,
      threadId,
      runId: plan.runId,
      input: plan.input,
      config,
      channel,
      seen,
      logger,
      viewArgs,
      onPause: (event) => {
        paused = event;
        deps.onPause?.(event);
      },
      // Still under the lease: a pause that expires is known to every process before anyone may answer it.
      beforeFinish: async () => {
        await trackDeadline(threadId, options.user, paused);
        await release();
      },
      keepHistory: deps.keepHistory ?? true,
    });
    const settled = run
      .catch((error: unknown) => logger.error("run driver failed", error))
      .finally(async () => {
        await release();
        channel.close();
        active.delete(threadId);
        queue.kick(threadId);
      });
    active.set(threadId, settled);
    return channel;
  }

  /** Keeps when a recorded pause expires, with who ran into it, so any serving process can expire it. */
  async function trackDeadline(threadId: string, user: RunUser, pause: PauseEvent | undefined): Promise<void> {
    if (pause?.expiresAt === undefined) return;
    const deadline: PauseDeadline = {
      threadId,
      interruptId: pause.interruptId,
      expiresAt: Date.parse(pause.expiresAt),
      userId: user.id,
      role: user.role,
    };
    await storage.pauseDeadlines
      .trackDeadline(deadline)
      .catch((error: unknown) => logger.error(`could not keep the deadline of thread ${threadId}'s pause`, error));
  }

  const expiry = createApprovalExpiry({
    store: storage.pauseDeadlines,
    logger,
    onExpired: deps.onApprovalExpired,
    expirer: {
      async expire(deadline) {
        let planned: Extract<ExpiryChoice, { kind: "expire" }> | undefined;
        const events = await launch({
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
    runs: { startQueued: (message) => runtime.startRun(queuedRunRequest(message)) },
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

  const posting: PostMessageDeps = {
    queue,
    storage,
    graph,
    cancellations,
    async admit(request) {
      assertMessageFits(request.message);
      await checkOwner(request.threadId, request.user);
      optionsFor(request.user, request.options);
      await checkQuotas({ usage: storage, quotas: deps.quotas ?? {}, userId: request.user.id, entry: "start" });
    },
    startRun: (request) => runtime.startRun(request),
    runOf: (threadId) => active.get(threadId),
  };

  const messageIds = (state: AgentStateType | undefined) =>
    new Set((state?.messages ?? []).map((m) => m.id).filter((id): id is string => !!id));

  const runtime: Runtime = {
    async createThread(user) {
      const threadId = randomUUID();
      await storage.createThread(threadId, user.id);
      return threadId;
    },

    async startRun(request: StartRunRequest): Promise<AsyncIterable<StreamEvent>> {
      assertMessageFits(request.message);
      const events = await launch({
        threadId: request.threadId,
        user: request.user,
        runOptions: request.options,
        entry: "start",
        supersede: request.supersede,
        plan: request.messageId
          ? planMessage(request.threadId, request.message, request.messageId)
          : planStart(request.threadId, request.message),
      });
      // The thread list names a thread by its first message; later messages keep that title.
      await storage.setThreadTitle(request.threadId, threadTitle(request.message));
      return events;
    },

    postMessage: (request) => postMessage(posting, request),

    async awaitQueued(request) {
      await checkOwner(request.threadId, request.user);
      return awaitQueued(posting, { ...request, userId: request.user.id });
    },

    serveQueue: () => queue.serve(),

    sweepQueue: () => queue.sweep(),

    sweepApprovalExpiry: async () => void (await expiry.sweep()),

    async resumeRun(request: ResumeRunRequest): Promise<AsyncIterable<StreamEvent>> {
      return launch({
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
      });
    },

    async recoverRun(threadId, user) {
      return launch({
        threadId,
        user,
        entry: "continue",
        recovering: true,
        plan: planRecover(threadId),
      });
    },

    async cancelRun(threadId, user) {
      await checkOwner(threadId, user);
      if (cancellations.cancel(threadId) || (await storage.requestCancel(threadId))) return true;
      const ended = await endPause({ graph, storage, threadId, viewArgs, onEvent: deps.onEvent });
      // Messages queued behind the pause may run now.
      if (ended) queue.kick(threadId);
      return ended;
    },

    async getThread(threadId, user): Promise<ThreadView> {
      const snapshot = await readableSnapshot(threadId, user);
      const running = (await storage.leaseHolder(threadId)) !== undefined;
      const view = threadView({ threadId, snapshot, running, viewArgs, registry: deps.registry });
      const queued = queuedViews(await queue.waiting(threadId, messageIds(snapshot.values as AgentStateType)));
      return queued.length > 0 ? { ...view, queued } : view;
    },

    listThreads: (user, { limit }) => listThreads({ storage, graph, user, limit }),

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
      await readableSnapshot(threadId, user);
      return storage.eventsAfter(threadId, afterSeq);
    },

    async close() {
      // No queued message starts once closing has begun: it waits for the next process.
      await Promise.all([queue.close(), expiry.close()]);
      // Let running runs finish within the grace period, then cancel the rest so each ends
      // with a readable answer and a recorded stop instead of dying with the database.
      await settleWithin([...active.values()], deps.shutdownGraceMs ?? 0);
      for (const threadId of active.keys()) cancellations.cancel(threadId);
      await settleWithin([...active.values()], SHUTDOWN_CANCEL_MS);
      await storage.close();
    },
  };
  return runtime;
}
