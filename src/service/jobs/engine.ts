import type { JobClaimStore } from "../../storage/jobs/types.js";
import type { Logger } from "../observability/logger.js";
import { settleWithin } from "../runtime/settle.js";
import type { JobDefinition, JobRunReport } from "./job.js";
import { runClaimed, runHere } from "./run-claimed.js";
import { dueTimes, latestDue, type DueTimes } from "./schedule.js";

/** A claim lasts this long without renewal unless the job says otherwise. */
const DEFAULT_LEASE_MS = 30_000;

/** How long `stop` waits for running jobs before it aborts them (5 s by default). */
const DEFAULT_DRAIN_MS = 5_000;

/** After the abort, how long `stop` still waits for the runs to end. */
const ABORT_GRACE_MS = 1_000;

/** setTimeout's longest delay; a later wake-up re-arms on the way. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** What an engine needs: where claims live, where failures go, and who watches runs (metrics). */
export interface JobEngineOptions {
  claims: JobClaimStore;
  logger: Logger;
  /** Told of every run's outcome (the job metrics); must return at once. */
  onRun?: (report: JobRunReport) => void;
  /** The clock (epoch ms); timers are Node's. */
  now?: () => number;
}

/** The one clock of an app's background work: jobs are registered, the engine starts and stops them all. */
export interface JobEngine {
  /** Adds a job (before or after `start`); throws on a name taken or a schedule croner refuses. */
  register(job: JobDefinition): void;
  /** The registered jobs' names, in registration order. */
  jobs(): string[];
  /** Runs every job on its schedule from now on (idempotent; an engine stopped stays stopped). */
  start(): void;
  /** Stops the clock, waits up to `drainMs` for running jobs, aborts the rest; no timer is left. */
  stop(options?: { drainMs?: number }): Promise<void>;
}

/** One registered job and where it stands. */
interface Slot {
  job: JobDefinition;
  times: DueTimes;
  leaseMs: number;
  /** The due time to ask for next and when (a refused claim asks again before its due time's next one). */
  wake?: { due: number; at: number };
  running?: Promise<void>;
  controller?: AbortController;
}

const started = new Set<JobEngine>();

/** The engines of this process that are started and not stopped (one per serving app). */
export function runningEngines(): JobEngine[] {
  return [...started];
}

/**
 * The background engine. Every process computes the same due times; for each, the process that
 * claims it (`JobClaimStore`) runs it, renewing its lease while the run lasts, and the others
 * skip it. A job never runs twice at once here, and a due time that comes while it still runs is
 * folded into the next one (a `catchUp` job runs the latest such due time as soon as the run ends). A holder that died is taken over once its lease ends (at once when its
 * process on this host is gone). The engine's timers are not unref'd: `stop` clears them.
 */
export function createJobEngine(options: JobEngineOptions): JobEngine {
  const { claims, logger } = options;
  const now = options.now ?? Date.now;
  const slots = new Map<string, Slot>();
  let state: "idle" | "started" | "stopped" = "idle";
  let timer: NodeJS.Timeout | undefined;

  function arm(): void {
    clearTimeout(timer);
    timer = undefined;
    if (state !== "started") return;
    const wakes = [...slots.values()].flatMap((slot) => (!slot.running && slot.wake ? [slot.wake.at] : []));
    if (wakes.length === 0) return;
    timer = setTimeout(tick, Math.min(Math.max(0, Math.min(...wakes) - now()), MAX_DELAY_MS));
  }

  function tick(): void {
    timer = undefined;
    const at = now();
    for (const slot of slots.values()) if (!slot.running && slot.wake && slot.wake.at <= at) begin(slot, slot.wake.due);
    arm();
  }

  /** The slot's first wake for an engine starting now; a `catchUp` job first asks whether it missed a due time. */
  function planFirst(slot: Slot): void {
    const at = now();
    const first = slot.times.first(at);
    if (first !== undefined) slot.wake = { due: first, at: first };
    if (!slot.job.catchUp || slot.job.perProcess) return;
    claims.lastDue(slot.job.name).then(
      (last) => {
        const missed = last === undefined ? undefined : latestDue(slot.times, last, at);
        if (state !== "started" || missed === undefined || slot.running || (slot.wake && slot.wake.due <= missed))
          return;
        slot.wake = { due: missed, at: now() };
        arm();
      },
      (error: unknown) => logger.error(`background job ${slot.job.name}: could not read its last due time`, error),
    );
  }

  function scheduleNext(slot: Slot, after: number): void {
    const due = slot.times.next(after);
    slot.wake = due === undefined ? undefined : { due, at: due };
  }

  /**
   * After a run of `due`: the next due time, or for a `catchUp` job whose run outlasted due times,
   * the latest of them at once (the others folded into it, as after downtime).
   */
  function planAfterRun(slot: Slot, due: number): void {
    const at = now();
    const missed = slot.job.catchUp && !slot.job.perProcess ? latestDue(slot.times, due, at) : undefined;
    if (missed === undefined) scheduleNext(slot, Math.max(at, due));
    else slot.wake = { due: missed, at };
  }

  function begin(slot: Slot, due: number): void {
    slot.wake = undefined;
    const controller = new AbortController();
    slot.controller = controller;
    slot.running = attempt(slot, due, controller)
      .catch((error: unknown) => logger.error(`background job ${slot.job.name} could not be claimed`, error))
      .finally(() => {
        slot.running = undefined;
        slot.controller = undefined;
        if (!slot.wake) planAfterRun(slot, due);
        arm();
      });
  }

  async function attempt(slot: Slot, due: number, controller: AbortController): Promise<void> {
    const { name } = slot.job;
    if (slot.job.perProcess) return runHere({ ...options, now, job: slot.job, dueAt: due, controller });
    const claim = await claims.claim({ job: name, dueAt: due, leaseMs: slot.leaseMs });
    switch (claim.kind) {
      case "claimed":
        return runClaimed({ ...options, now, job: slot.job, leaseMs: slot.leaseMs, dueAt: due, claim, controller });
      case "held": {
        // Asked again when the holder's lease ends, unless the next due time comes first.
        const retryAt = now() + claim.retryInMs;
        const next = slot.times.next(Math.max(now(), due));
        slot.wake = next !== undefined && next < retryAt ? { due: next, at: next } : { due, at: retryAt };
        return;
      }
      case "done":
        return;
      default: {
        const _exhaustive: never = claim;
        return _exhaustive;
      }
    }
  }

  const engine: JobEngine = {
    register(job) {
      if (slots.has(job.name)) throw new Error(`a background job named ${job.name} is registered already`);
      const slot: Slot = { job, times: dueTimes(job.schedule), leaseMs: job.leaseMs ?? DEFAULT_LEASE_MS };
      slots.set(job.name, slot);
      if (state !== "started") return;
      planFirst(slot);
      arm();
    },
    jobs: () => [...slots.keys()],
    start() {
      if (state !== "idle") return;
      state = "started";
      started.add(engine);
      for (const slot of slots.values()) planFirst(slot);
      arm();
    },
    async stop(stopOptions = {}) {
      state = "stopped";
      started.delete(engine);
      arm();
      const running = () => [...slots.values()].flatMap((slot) => (slot.running ? [slot.running] : []));
      await settleWithin(running(), stopOptions.drainMs ?? DEFAULT_DRAIN_MS);
      for (const slot of slots.values()) slot.controller?.abort(new EngineStoppedError());
      await settleWithin(running(), ABORT_GRACE_MS);
    },
  };
  return engine;
}

/** The reason a run is aborted when the engine stops before it ended. */
export class EngineStoppedError extends Error {
  constructor() {
    super("the background engine stopped");
  }
}
