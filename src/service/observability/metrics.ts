import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { RunEvent } from "../../contracts/events.js";
import { MODEL_FAILURE_REASONS } from "../../graph/model-failure.js";
import type { StopReason } from "../../contracts/stop-reasons.js";
import type { Runtime } from "../runtime/runtime.js";
import type { JobRunReport } from "../jobs/job.js";
import type { ProbeResult } from "../probes/probe.js";

/** What the metrics read from the process at each scrape. */
export interface ScrapedSources {
  /** The configured MCP servers and whether each is up (`/healthz`'s report). */
  health?: () => { servers?: ReadonlyArray<{ name: string; status: "up" | "down" }> };
  /** Epoch ms the oldest pause still waiting for a person began (any process's, from the database). */
  oldestPauseSince?: () => Promise<number | undefined>;
}

/** The daily quotas whose refusals are counted (`opspilot_quota_refusals_total{quota}`). */
const QUOTAS = ["runs", "tokens", "costUsd"] as const;

/** What became of a run that paused for a person (the `outcome` label of `opspilot_paused_runs_total`). */
export type PauseOutcome = "resumed_finished" | "resumed_stopped" | "cancelled";

/**
 * Prometheus metrics of the runs this process drives, fed from their events. A run that
 * pauses and is resumed is one run: its resume neither starts nor finishes another, and its
 * steps are counted once, at its end. Several processes each count what they drive; the
 * PromQL in docs/api.md sums over instances.
 */
export class RunMetrics {
  /** The registry `/metrics` serves. */
  readonly registry = new Registry();
  private readonly runsStarted = this.counter(
    "opspilot_runs_started_total",
    "Runs started (a resume is not a new run)",
  );
  private readonly runsFinished = this.counter(
    "opspilot_runs_finished_total",
    "Runs that ended, by stop reason (a pause is not an end)",
    ["stop_reason"],
  );
  private readonly runSeconds = new Histogram({
    name: "opspilot_run_duration_seconds",
    help: "Active time of a run that ended, across its pauses (the wait for a person excluded)",
    buckets: [0.05, 0.25, 1, 5, 15, 60, 180],
    registers: [this.registry],
  });
  private readonly steps = new Histogram({
    name: "opspilot_run_steps",
    help: "Model turns per run that ended, across its pauses",
    buckets: [1, 2, 3, 5, 8, 13, 21],
    registers: [this.registry],
  });
  private readonly toolCalls = this.counter(
    "opspilot_tool_calls_total",
    "Tool results by tool and outcome (ok or the error code)",
    ["tool", "outcome"],
  );
  private readonly toolSeconds = new Histogram({
    name: "opspilot_tool_duration_seconds",
    help: "Tool call duration, retries included",
    labelNames: ["tool"],
    buckets: [0.005, 0.025, 0.1, 0.5, 2, 10],
    registers: [this.registry],
  });
  private readonly modelSeconds = new Histogram({
    name: "opspilot_model_duration_seconds",
    help: "Latency of each model call (one per step)",
    buckets: [0.05, 0.25, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly tokens = this.counter("opspilot_tokens_total", "Model tokens by kind", ["kind"]);
  private readonly cost = this.counter("opspilot_cost_usd_total", "Model cost at the configured prices, in US dollars");
  private readonly pauses = this.counter("opspilot_pauses_total", "Pauses for a person, by type", ["type"]);
  private readonly pausedRuns = this.counter(
    "opspilot_paused_runs_total",
    "Runs that paused for a person and then ended, by outcome",
    ["outcome"],
  );
  private readonly waiting = new Gauge({
    name: "opspilot_pauses_waiting",
    help: "Pauses waiting for a person (per process: one paused here may be answered by another, so sum over instances)",
    registers: [this.registry],
  });

  private readonly quotaRefusals = this.counter(
    "opspilot_quota_refusals_total",
    "Requests refused because their user spent a daily quota, by quota",
    ["quota"],
  );
  private readonly jobRuns = this.counter(
    "opspilot_job_runs_total",
    "Background job runs this process made, by job and outcome (ok or failed)",
    ["job", "outcome"],
  );
  private readonly jobFailures = this.counter(
    "opspilot_job_failures_total",
    "Background job runs that failed (logged with the error), by job",
    ["job"],
  );
  private readonly dependencyUp = new Gauge({
    name: "opspilot_dependency_up",
    help: "1 when this process's last probe of a dependency (model, toolset, mcp:<server>) passed, 0 when it failed",
    labelNames: ["dependency"],
    registers: [this.registry],
  });
  private readonly dependencyLastOk = new Gauge({
    name: "opspilot_dependency_last_ok_timestamp_seconds",
    help: "When this process's probe of a dependency last passed (Unix seconds; absent until one has)",
    labelNames: ["dependency"],
    registers: [this.registry],
  });
  private readonly modelErrors = this.counter(
    "opspilot_model_errors_total",
    "Model calls that failed for good (after retries) and ended their run, by reason",
    ["reason"],
  );
  /** Replies to Slack clicks not delivered, by action (`approve`, `reject`): `slack/intake.ts` counts them. */
  readonly slackReplyFailures = this.counter(
    "opspilot_slack_reply_failures_total",
    "Replies to Slack clicks that could not be delivered through response_url (refused or given up), by action",
    ["action"],
  );
  private readonly sources: ScrapedSources = {};

  constructor(options: { processMetrics?: boolean } = {}) {
    const sources = this.sources;
    new Gauge({
      name: "opspilot_mcp_server_up",
      help: "1 while a configured MCP server is up, 0 while it is down",
      labelNames: ["server"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const server of sources.health?.().servers ?? [])
          this.set({ server: server.name }, server.status === "up" ? 1 : 0);
      },
    });
    new Gauge({
      name: "opspilot_oldest_pause_age_seconds",
      help: "How long the oldest pause still waiting for a person has waited (0 when none waits); the same in every process",
      registers: [this.registry],
      async collect() {
        // A database that does not answer leaves the last value: a scrape never fails over it.
        const since = await sources.oldestPauseSince?.().catch(() => null);
        if (since === null) return;
        this.set(since === undefined ? 0 : Math.max(0, (Date.now() - since) / 1000));
      },
    });
    for (const quota of QUOTAS) this.quotaRefusals.inc({ quota }, 0);
    for (const reason of MODEL_FAILURE_REASONS) this.modelErrors.inc({ reason }, 0);
    for (const action of ["approve", "reject"]) this.slackReplyFailures.inc({ action }, 0);
    if (options.processMetrics) this.processMetrics();
    // Present from the start, so a rate over them reads 0 rather than no data before the first run.
    this.runsStarted.inc(0);
    this.cost.inc(0);
    for (const kind of ["input", "output"]) this.tokens.inc({ kind }, 0);
  }

  /** What the MCP and pause gauges read at each scrape. */
  watch(sources: ScrapedSources): void {
    Object.assign(this.sources, sources);
  }

  /** Counts a background job's run (the engine reports each one, of every job). */
  jobRan(report: JobRunReport): void {
    this.jobRuns.inc({ job: report.job, outcome: report.outcome });
    if (report.outcome === "failed") this.jobFailures.inc({ job: report.job });
  }

  /** Sets the dependency gauges from one round of probes that ended at `at` (epoch ms). */
  dependenciesProbed(results: readonly ProbeResult[], at: number): void {
    for (const { dependency, ok } of results) {
      this.dependencyUp.set({ dependency }, ok ? 1 : 0);
      if (ok) this.dependencyLastOk.set({ dependency }, at / 1000);
    }
  }

  /** Counts a request refused by a daily quota. */
  quotaRefused(quota: string): void {
    this.quotaRefusals.inc({ quota });
  }

  /** Counts one event. */
  observe(event: RunEvent): void {
    switch (event.type) {
      case "run_started":
        if (event.resumed) this.waiting.dec();
        else this.runsStarted.inc();
        return;
      case "tool_call":
      case "assistant_message":
        if (event.model) {
          this.modelSeconds.observe(event.model.latencyMs / 1000);
          this.tokens.inc({ kind: "input" }, event.model.inputTokens);
          this.tokens.inc({ kind: "output" }, event.model.outputTokens);
          this.cost.inc(event.model.costUsd);
        }
        return;
      case "tool_result":
        this.toolCalls.inc({ tool: event.tool, outcome: event.ok ? "ok" : (event.errorCode ?? "error") });
        this.toolSeconds.observe({ tool: event.tool }, event.durationMs / 1000);
        return;
      case "loop_interrupt":
        this.pauses.inc({ type: event.interruptType });
        this.waiting.inc();
        return;
      case "run_finished":
        if (event.stopReason === "interrupted") return;
        if (event.modelError) this.modelErrors.inc({ reason: event.modelError });
        this.runsFinished.inc({ stop_reason: event.stopReason });
        this.runSeconds.observe(event.durationMs / 1000);
        this.steps.observe(event.steps);
        if (event.paused) this.pausedRuns.inc({ outcome: pauseOutcome(event.stopReason) });
        return;
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  }

  /**
   * prom-client's Node.js metrics without its three gauges named `…_total`, which
   * `promtool check metrics` refuses (only counters end so); their totals are the sums of the
   * by-type gauges it keeps (`opspilot_nodejs_active_handles{type}` and the like).
   */
  private processMetrics(): void {
    collectDefaultMetrics({ register: this.registry, prefix: "opspilot_" });
    for (const what of ["handles", "requests", "resources"])
      this.registry.removeSingleMetric(`opspilot_nodejs_active_${what}_total`);
  }

  private counter(name: string, help: string, labelNames: string[] = []): Counter {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }
}

/** A paused run's outcome from the stop reason it ended with. */
export function pauseOutcome(stopReason: Exclude<StopReason, "interrupted">): PauseOutcome {
  if (stopReason === "final_answer") return "resumed_finished";
  if (stopReason === "cancelled") return "cancelled";
  return "resumed_stopped";
}

/** When the oldest pause still waiting began, from the records every process shares (any window: waiting pauses are listed whatever their age). */
export async function oldestPauseSince(runtime: Pick<Runtime, "recordsSummary">): Promise<number | undefined> {
  const now = Date.now();
  const oldest = (await runtime.recordsSummary({ since: now, until: now })).waitingPauses[0];
  return oldest ? Date.parse(oldest.since) : undefined;
}
