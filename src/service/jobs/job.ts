/** When a job is due: all processes compute the same due times, so they can agree on who runs each. */
export type JobSchedule =
  /** Every `ms`, at multiples of `ms` since the epoch; `atStart` also runs the period under way when it starts. */
  | { kind: "every"; ms: number; atStart?: boolean }
  /** A cron expression (five or six fields, read by croner) in an IANA time zone. */
  | { kind: "cron"; expression: string; timezone: string }
  /** Once, at `at` (epoch ms), or at start when that time has passed. */
  | { kind: "at"; at: number };

/** A background job: one `register` call of the engine. */
export interface JobDefinition {
  /** Unique in the engine and stable across processes: the key of its claims. */
  name: string;
  schedule: JobSchedule;
  /**
   * One run for the due time `dueAt` (epoch ms). `signal` aborts when the engine stops past its
   * drain bound or another process took the job over; a run that throws is logged and counted,
   * and the job stays scheduled.
   */
  run(signal: AbortSignal, dueAt: number): Promise<void>;
  /** How long a claim lasts without renewal: another process takes over a dead one's job after it (30 s by default). */
  leaseMs?: number;
  /**
   * Runs in every process at each due time, without a claim (a check of what this process
   * sees, such as its own dependency probes); by default one process runs each due time.
   */
  perProcess?: boolean;
  /**
   * A due time that passed while no process ran the job (after the last due time any process
   * claimed) runs once when the engine starts: the latest such due time, however many passed.
   * A job never claimed before waits for its next due time. Likewise, due times that passed while
   * a run of it lasted: the latest runs as soon as that run ends. Not for `perProcess` jobs.
   */
  catchUp?: boolean;
}

/** What became of one run (metrics, logs, tests). */
export interface JobRunReport {
  job: string;
  /** The due time it ran for (epoch ms). */
  dueAt: number;
  outcome: "ok" | "failed";
  durationMs: number;
  error?: unknown;
}
