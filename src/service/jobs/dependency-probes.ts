import { runProbes, type DependencyProbe, type ProbeResult } from "../probes/probe.js";
import type { JobDefinition } from "./job.js";

/** How often each process probes its dependencies unless `OPSPILOT_DEPENDENCY_PROBE_INTERVAL` says otherwise. */
export const DEPENDENCY_PROBE_MS = 60_000;

/** What the `dependency-probes` job checks and whom it tells. */
export interface DependencyProbeJobOptions {
  /** The probes of this process's dependencies, built at each run (MCP servers come and go). */
  probes: () => readonly DependencyProbe[];
  /** Told of every probe's result with the time the probes ended (epoch ms): the dependency metrics. */
  onResults: (results: readonly ProbeResult[], at: number) => void;
  everyMs?: number;
}

/**
 * The `dependency-probes` job: the same cheap, bounded probes doctor runs (never a run), at
 * start and every `everyMs`, in every process, since each process exports what it sees.
 */
export function dependencyProbeJob(options: DependencyProbeJobOptions): JobDefinition {
  return {
    name: "dependency-probes",
    perProcess: true,
    schedule: { kind: "every", ms: options.everyMs ?? DEPENDENCY_PROBE_MS, atStart: true },
    async run() {
      const results = await runProbes(options.probes());
      options.onResults(results, Date.now());
    },
  };
}
