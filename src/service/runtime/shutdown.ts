import { settleWithin } from "./settle.js";
import type { CancellationRegistry } from "./cancellation.js";
import type { RunLauncher } from "./run-launcher.js";

/** On close, how long cancelled runs get to write their final answer. */
export const SHUTDOWN_CANCEL_MS = 5_000;

/**
 * A process's runs at shutdown: each stops at its next checkpoint and releases its thread, which
 * another process then recovers (nothing re-runs: the step in progress ends and is saved first).
 * Runs still going after `graceMs` are cancelled, so each ends with its calls answered and a
 * readable answer, within `SHUTDOWN_CANCEL_MS` more. Resolves when no run of this process is left.
 */
export async function drainRuns(options: {
  runs: Pick<RunLauncher, "running" | "handOver" | "stopHandingOver">;
  cancellations: CancellationRegistry;
  graceMs: number;
}): Promise<void> {
  const { runs, cancellations } = options;
  runs.handOver();
  const active = () => [...runs.running().values()];
  await settleWithin(active(), options.graceMs);
  if (active().length === 0) return;
  runs.stopHandingOver();
  for (const threadId of runs.running().keys()) cancellations.cancel(threadId);
  await settleWithin(active(), SHUTDOWN_CANCEL_MS);
}
