import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { RunEvent } from "../contracts/events.js";

/** Prometheus metrics of the runs this process drives, fed from their events. */
export class RunMetrics {
  /** The registry `/metrics` serves. */
  readonly registry = new Registry();
  private readonly runs = new Counter({
    name: "opspilot_runs_total",
    help: "Runs (and resumes) by stop reason",
    labelNames: ["stop_reason"],
    registers: [this.registry],
  });
  private readonly runSeconds = new Histogram({
    name: "opspilot_run_duration_seconds",
    help: "Wall time of a run until it stopped or paused",
    buckets: [0.05, 0.25, 1, 5, 15, 60, 180],
    registers: [this.registry],
  });
  private readonly steps = new Histogram({
    name: "opspilot_run_steps",
    help: "Model turns per run",
    buckets: [1, 2, 3, 5, 8, 13, 21],
    registers: [this.registry],
  });
  private readonly toolCalls = new Counter({
    name: "opspilot_tool_calls_total",
    help: "Tool results by tool and outcome (ok or error code)",
    labelNames: ["tool", "outcome"],
    registers: [this.registry],
  });
  private readonly toolSeconds = new Histogram({
    name: "opspilot_tool_duration_seconds",
    help: "Tool call duration, retries included",
    labelNames: ["tool"],
    buckets: [0.005, 0.025, 0.1, 0.5, 2, 10],
    registers: [this.registry],
  });
  private readonly pauses = new Counter({
    name: "opspilot_pauses_total",
    help: "Pauses by type",
    labelNames: ["type"],
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: "opspilot_" });
  }

  /** Counts one event. */
  observe(event: RunEvent): void {
    switch (event.type) {
      case "tool_result":
        this.toolCalls.inc({ tool: event.tool, outcome: event.ok ? "ok" : (event.errorCode ?? "error") });
        this.toolSeconds.observe({ tool: event.tool }, event.durationMs / 1000);
        return;
      case "loop_interrupt":
        this.pauses.inc({ type: event.interruptType });
        return;
      case "run_finished":
        this.runs.inc({ stop_reason: event.stopReason });
        this.runSeconds.observe(event.durationMs / 1000);
        this.steps.observe(event.steps);
        return;
      case "run_started":
      case "tool_call":
      case "assistant_message":
        return;
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  }
}
