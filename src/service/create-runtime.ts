import { randomUUID } from "node:crypto";
import type { OpsPilotGraph } from "../agent/graph.js";
import { recursionLimitFor, type RunOptionsInput } from "../graph/config.js";
import { limitsOf, OPEN_LIMIT_POLICY, type LimitPolicy, type RunOptionsRequest } from "../graph/limits.js";
import { checkQuotas, type DailyQuotas, type QuotaEntry } from "./quotas.js";
import type { AgentStateType } from "../graph/state.js";
import type { Storage } from "../storage/types.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { CurrentRoles, RunUser } from "../contracts/user.js";
import { assertMessageFits, ThreadBusyError, ThreadNotFoundError } from "../contracts/errors.js";
import { planRecover, planResume, planStart, type Planner, type RunPlan } from "./run-plans.js";
import { runOptionsFor } from "./run-options.js";
import { threadView } from "./thread-view.js";
import type { ResumeRunRequest, Runtime, StartRunRequest, ThreadView } from "./runtime.js";
import { CancellationRegistry } from "./cancellation.js";
import { consoleLogger, type Logger } from "./logger.js";
import { driveRun } from "./drive-run.js";
import { EventChannel } from "./event-channel.js";
import type { RunEvent, StreamEvent } from "../contracts/events.js";
import { maskValue } from "../execution/sanitize.js";
import { endPause } from "./end-pause.js";
import { exportRecords } from "./records-export.js";
import { holdForRun, tryLease } from "./lease.js";
import { SHUTDOWN_CANCEL_MS, settleWithin } from "./shutdown.js";
import { makeArgsView } from "./args-view.js";
import { recordedMessageIds } from "./message-views.js";
import type { PauseEvent } from "./pause-webhook-body.js";
import { listThreads, threadTitle } from "./thread-list.js";

/** How a runtime behaves, whatever graph it drives: defaults, ceilings, quotas and where it reports. */
export interface RuntimeSettings {
  /** Defaults for every run's options. */
  defaults?: RunOptionsInput;
  /** Ceilings a run's own limits may not pass, and the profiles it may pick (none by default). */
  limits?: LimitPolicy;
  /** What each user may spend per UTC day (unlimited by default). */
  quotas?: DailyQuotas;
  /** Sees every recorded event of every run this runtime drives (metrics); answer fragments are not shown to it. */
  onEvent?: (event: RunEvent) => void;
  /** Told of each new pause once it is recorded (the pause webhook); must return at once. */
  onPause?: (event: PauseEvent) => void;
  /** Receives unexpected failures (stderr by default). */
  logger?: Logger;
  /** On close, how long running runs may go on before they are cancelled (0 by default). */
  shutdownGraceMs?: number;
  /**
   * The roles each user id holds now (a server's token table), so a resume is also judged by
   * what the thread's owner may do today; without it only the answering user's role is checked.
   */
  currentRoles?: CurrentRoles;
  /**
   * Keep every checkpoint of a thread, as LangGraph does (the default); false drops a thread's
   * older checkpoints once each run ends or pauses (`OPSPILOT_CHECKPOINTS=latest`).
   */
  keepHistory?: boolean;
}

/** What the runtime drives, and how. */
export interface RuntimeDeps extends RuntimeSettings {
  /** The graph compiled with a checkpointer shared by every process that serves these threads. */
  graph: OpsPilotGraph;
  /** The same tools the graph was built with (resume values are checked against them). */
  registry: ToolRegistry;
  storage: Storage;
  /** Must be the registry the graph was built with, so cancels reach its nodes. */
  cancellations: CancellationRegistry;
}

/** The runtime the CLI, the HTTP API and tests drive opspilot through. */
export function createRuntime(deps: RuntimeDeps): Runtime {
  const { graph, storage, cancellations } = deps;
  const logger = deps.logger ?? consoleLogger();
  const viewArgs = makeArgsView(deps.registry);
  const active = new Map<string, Promise<unknown>>();
  const policy = deps.limits ?? OPEN_LIMIT_POLICY;
  const optionsFor = runOptionsFor({ policy, defaults: deps.defaults });

  async function checkOwner(threadId: string, user: RunUser) {
    const owner = await storage.threadOwner(threadId);
    if (owner === undefined || owner !== user.id) throw new ThreadNotFoundError(threadId);
  }

  async function ownedSnapshot(threadId: string, user: RunUser) {
    await checkOwner(threadId, user);
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
    plan: Planner;
  }) {
    const { threadId } = options;
    await checkOwner(threadId, options.user);
    // Both refusals come before the lease, so a refused request leaves the thread as it was.
    const requested = optionsFor(options.user, options.runOptions);
    let runOptions = requested.options;
    await checkQuotas({ usage: storage, quotas: deps.quotas ?? {}, userId: options.user.id, entry: options.entry });
    const lease = await tryLease(storage, threadId);
    if (!lease) throw new ThreadBusyError(threadId);
    let plan: RunPlan;
    let seen: Set<string>;
    try {
      const snapshot = await graph.getState({ configurable: { thread_id: threadId } });
      plan = options.plan(snapshot);
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
      onPause: deps.onPause,
      beforeFinish: release,
      keepHistory: deps.keepHistory ?? true,
    });
    const settled = run
      .catch((error: unknown) => logger.error("run driver failed", error))
      .finally(async () => {
        await release();
        channel.close();
        active.delete(threadId);
      });
    active.set(threadId, settled);
    return channel;
  }

  const messageIds = (state: AgentStateType | undefined) =>
    new Set((state?.messages ?? []).map((m) => m.id).filter((id): id is string => !!id));

  return {
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
        plan: planStart(request.threadId, request.message),
      });
      // The thread list names a thread by its first message; later messages keep that title.
      await storage.setThreadTitle(request.threadId, threadTitle(request.message));
      return events;
    },

    async resumeRun(request: ResumeRunRequest): Promise<AsyncIterable<StreamEvent>> {
      return launch({
        threadId: request.threadId,
        user: request.user,
        runOptions: request.options,
        entry: "continue",
        plan: planResume({
          threadId: request.threadId,
          resume: request.resume,
          user: request.user,
          registry: deps.registry,
          currentRoles: deps.currentRoles,
        }),
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
      return endPause({ graph, storage, threadId, viewArgs, onEvent: deps.onEvent });
    },

    async getThread(threadId, user): Promise<ThreadView> {
      const snapshot = await ownedSnapshot(threadId, user);
      const running = (await storage.leaseHolder(threadId)) !== undefined;
      return threadView({ threadId, snapshot, running, viewArgs });
    },

    listThreads: (user, { limit }) => listThreads({ storage, graph, user, limit }),

    async getResult(threadId, user, callId) {
      await checkOwner(threadId, user);
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
      await ownedSnapshot(threadId, user);
      return storage.eventsAfter(threadId, afterSeq);
    },

    async close() {
      // Let running runs finish within the grace period, then cancel the rest so each ends
      // with a readable answer and a recorded stop instead of dying with the database.
      await settleWithin([...active.values()], deps.shutdownGraceMs ?? 0);
      for (const threadId of active.keys()) cancellations.cancel(threadId);
      await settleWithin([...active.values()], SHUTDOWN_CANCEL_MS);
      await storage.close();
    },
  };
}

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
function observeRecorded(onEvent: ((event: RunEvent) => void) | undefined): ((event: StreamEvent) => void) | undefined {
  if (!onEvent) return undefined;
  return (event) => {
    if (event.type !== "assistant_delta") onEvent(event);
  };
}
