import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { RunEvent } from "../contracts/events.js";
import type { StopReason } from "../contracts/stop-reasons.js";

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

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: "opspilot_" });
    // Present from the start, so a rate over them reads 0 rather than no data before the first run.
    this.runsStarted.inc(0);
    this.cost.inc(0);
    for (const kind of ["input", "output"]) this.tokens.inc({ kind }, 0);
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
