import { recursionLimitFor } from "../../graph/config.js";
import { limitsOf, OPEN_LIMIT_POLICY, type RunOptionsRequest } from "../../graph/limits.js";
import { checkQuotas, type QuotaEntry } from "./quotas.js";
import type { RunUser } from "../../contracts/user.js";
import { assertMessageFits, ThreadBusyError } from "../../contracts/errors.js";
import { createThreadAccess, type ThreadAccess, type ThreadGrant, type ThreadUse } from "./thread-access.js";
import { planStart, type Planner, type RunPlan } from "./run-plans.js";
import { runOptionsFor } from "./run-options.js";
import type { StartRunRequest } from "./runtime.js";
import { consoleLogger, type Logger } from "../observability/logger.js";
import { driveRun } from "../events/drive-run.js";
import { observeRecorded, recordedMessageIds } from "../events/recorded-events.js";
import type { RuntimeDeps } from "./settings.js";
import { EventChannel } from "../events/event-channel.js";
import type { StreamEvent } from "../../contracts/events.js";
import { holdForRun, tryLease } from "./lease.js";
import { makeArgsView, type ArgsView } from "../events/args-view.js";
import { threadTitle } from "../events/thread-list.js";
import { planMessage } from "../queue/queued-plan.js";
import { supersedePause } from "../approvals/supersede-pause.js";
import type { PauseDeadline } from "../../storage/types.js";
import type { PauseEvent } from "../notices/pause-webhook-body.js";
import { readThread } from "./read-thread.js";
import { messageIdsOf } from "../events/step-events.js";
import { RunHandoff } from "./handoff.js";

/** One run to launch on a thread: who asks, what for, and how its plan is decided from the thread's state. */
export interface LaunchOptions {
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
}

/** What launches runs: the runtime, the message queue and posting all start runs through it, and it calls none of them. */
export interface RunLauncher {
  /** Takes the thread's lease, plans the run from the state read under it, and drives it; the events as they come. */
  launch(options: LaunchOptions): Promise<AsyncIterable<StreamEvent>>;
  /** A new message's run (with its queued id, when it was queued), naming the thread after its first message. */
  startRun(request: StartRunRequest): Promise<AsyncIterable<StreamEvent>>;
  /** Throws what would refuse the message now, whatever the thread is doing: owner, size, limits, quotas. */
  admit(request: StartRunRequest): Promise<void>;
  /** Settles when this process's run of the thread ends; undefined when this process runs none. */
  runOf(threadId: string): Promise<unknown> | undefined;
  /** The threads this process runs now, with each run's end. */
  running(): ReadonlyMap<string, Promise<unknown>>;
  /** Shutdown: every run here, and any launched from now on, stops at its next checkpoint for another process. */
  handOver(): void;
  /** Lets the runs here go through every step again (before cancelling them, so each writes its answer). */
  stopHandingOver(): void;
  /** How `user` may use the thread; throws `ThreadNotFoundError` when they may not. */
  checkOwner(threadId: string, user: RunUser, use?: ThreadUse): Promise<ThreadGrant>;
  /** How tool-call args appear in events and views: validated and masked. */
  viewArgs: ArgsView;
  logger: Logger;
}

/** What a launcher needs beyond the runtime's own deps. */
export interface LauncherDeps extends RuntimeDeps {
  /** Told when a run here has ended and released its thread (the queue looks for the thread's next message). */
  afterRun?: (threadId: string) => void;
}

/** The launcher of a runtime's runs: leases, plans under the lease, limits and quotas, and the run's driving. */
export function createRunLauncher(deps: LauncherDeps): RunLauncher {
  const { graph, storage, cancellations } = deps;
  const logger = deps.logger ?? consoleLogger();
  const viewArgs = makeArgsView(deps.registry);
  const active = new Map<string, Promise<unknown>>();
  const handoffs = new Map<string, RunHandoff>();
  let handingOver = false;
  const optionsFor = runOptionsFor({ policy: deps.limits ?? OPEN_LIMIT_POLICY, defaults: deps.defaults });
  const access: ThreadAccess = createThreadAccess({
    storage,
    graph,
    registry: deps.registry,
    sharedOwners: deps.sharedOwners,
  });
  const checkOwner = (threadId: string, user: RunUser, use?: ThreadUse) => access.check(threadId, user, use);

  async function launch(options: LaunchOptions): Promise<AsyncIterable<StreamEvent>> {
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
      let thread = await readThread(graph, threadId);
      // Under the same lease as the new run, so no other run comes between the closed pause and the message.
      if (options.supersede && thread.standing.kind === "paused") {
        await supersedePause({ graph, storage, threadId, thread, user: options.user, viewArgs, onEvent: deps.onEvent });
        thread = await readThread(graph, threadId);
      }
      // Another approver answers for the owner, whose current roles bind the answer too; on a shared thread no person owns it.
      plan = options.plan(thread, { owner: grant.via === "shared" ? undefined : grant.owner });
      seen = options.recovering
        ? recordedMessageIds(thread.values.messages, await storage.eventsAfter(threadId, 0), viewArgs)
        : messageIdsOf(thread.values.messages);
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
    const channel = new EventChannel<StreamEvent>(observeRecorded(deps.onEvent));
    const { release } = holdForRun({ storage, threadId, lease, cancellations, logger });
    let paused: PauseEvent | undefined;
    const handoff = new RunHandoff(graph);
    if (handingOver) handoff.request();
    handoffs.set(threadId, handoff);
    const run = driveRun({
      graph,
      storage,
      threadId,
      runId: plan.runId,
      input: plan.input,
      config: { configurable, recursionLimit: recursionLimitFor(runOptions) },
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
      handoff,
      onHandedOver: () => recordHandoff(threadId, options.user),
    });
    const settled = run
      .catch((error: unknown) => logger.error("run driver failed", error))
      .finally(async () => {
        await release();
        channel.close();
        active.delete(threadId);
        handoffs.delete(threadId);
        deps.afterRun?.(threadId);
      });
    active.set(threadId, settled);
    return channel;
  }

  /** Keeps a run handed over, with who it ran as, so that a process takes its thread over (the `takeover` job). */
  async function recordHandoff(threadId: string, user: RunUser): Promise<void> {
    await storage.handoffs
      .recordHandoff({ threadId, user, handedAt: Date.now() })
      .catch((error: unknown) => logger.error(`could not record the hand-over of thread ${threadId}`, error));
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

  return {
    launch,
    async startRun(request) {
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
    async admit(request) {
      assertMessageFits(request.message);
      await checkOwner(request.threadId, request.user);
      optionsFor(request.user, request.options);
      await checkQuotas({ usage: storage, quotas: deps.quotas ?? {}, userId: request.user.id, entry: "start" });
    },
    runOf: (threadId) => active.get(threadId),
    running: () => active,
    handOver() {
      handingOver = true;
      for (const handoff of handoffs.values()) handoff.request();
    },
    stopHandingOver() {
      handingOver = false;
      for (const handoff of handoffs.values()) handoff.withdraw();
    },
    checkOwner,
    viewArgs,
    logger,
  };
}
