import type { DependencyProbe } from "../probes/probe.js";
import { runProbes } from "../probes/probe.js";

/** What `GET /readyz` answers: 200 when `ready`, else 503 with the reasons. */
export interface ReadinessReport {
  ready: boolean;
  status: "ready" | "not_ready";
  /** Why not, one line each: `starting`, `draining`, `database: <what failed>`. Empty when ready. */
  reasons: string[];
}

/**
 * Whether this process should take traffic: it has started, its database answers and it is
 * not draining. A model, toolset or MCP outage never makes it unready: the page stays in
 * service and says what is down (`/healthz`, doctor) rather than disappearing behind a balancer.
 */
export interface Readiness {
  /** Marks start-up done; until then the process is `starting`. */
  markStarted(): void;
  /** Takes the process out of service (SIGTERM: let the balancer stop sending before it closes), or back. */
  setDraining(draining: boolean): void;
  /** Whether `setDraining(true)` is in force. */
  readonly draining: boolean;
  /** Checks now: the flags, then the database within `timeoutMs`. */
  check(): Promise<ReadinessReport>;
}

/** How long `/readyz` waits for the database before it counts it as gone. */
export const READINESS_DATABASE_TIMEOUT_MS = 2_000;

/** The readiness of a process whose database `database` probes (none: only the flags count). */
export function createReadiness(
  options: { database?: DependencyProbe; timeoutMs?: number; started?: boolean } = {},
): Readiness {
  let started = options.started ?? false;
  let draining = false;
  return {
    markStarted: () => void (started = true),
    setDraining: (value) => void (draining = value),
    get draining() {
      return draining;
    },
    async check() {
      const reasons: string[] = [];
      if (!started) reasons.push("starting");
      if (draining) reasons.push("draining");
      if (options.database) {
        const [result] = await runProbes([options.database], options.timeoutMs ?? READINESS_DATABASE_TIMEOUT_MS);
        if (!result!.ok) reasons.push(`database: ${result!.detail}`);
      }
      return { ready: reasons.length === 0, status: reasons.length === 0 ? "ready" : "not_ready", reasons };
    },
  };
}
