/** What one check of a dependency found: one line a person can act on. */
export interface ProbeResult {
  /** What was checked: `model`, `prometheus`, `alertmanager`, `mcp:<server>`, `database`, `webhook:pause`, `slack`. */
  dependency: string;
  /** Whether it works as on-call needs it. */
  ok: boolean;
  /** What was found: where, how it answered, how long it took, and what to do when it failed. */
  detail: string;
}

/**
 * A cheap, bounded check of one dependency, run by doctor and, later, on a schedule. `check`
 * stops when `signal` aborts and never throws for what it checks (a throw is reported as a failure).
 */
export interface DependencyProbe {
  /** The dependency it checks (the `dependency` of its result). */
  dependency: string;
  /** Its own time limit, when the default does not fit (a model may think for a while). */
  timeoutMs?: number;
  /** Checks once. */
  check(signal: AbortSignal): Promise<ProbeResult>;
}

/** How long a probe may take when it sets no limit of its own. */
export const PROBE_TIMEOUT_MS = 10_000;

/**
 * Runs every probe at once, each within its time limit: a probe that has not answered by then
 * is a failure ("no answer within 10 s") whatever it does later, and one that throws is a
 * failure with the error's first line. Results come in the probes' order.
 */
export function runProbes(
  probes: readonly DependencyProbe[],
  timeoutMs: number = PROBE_TIMEOUT_MS,
): Promise<ProbeResult[]> {
  return Promise.all(probes.map((probe) => runProbe(probe, probe.timeoutMs ?? timeoutMs)));
}

async function runProbe(probe: DependencyProbe, timeoutMs: number): Promise<ProbeResult> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ProbeResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new DOMException("The probe ran out of time.", "TimeoutError"));
      resolve({ dependency: probe.dependency, ok: false, detail: `no answer within ${seconds(timeoutMs)}` });
    }, timeoutMs);
  });
  const checked = probe
    .check(controller.signal)
    .catch((error: unknown): ProbeResult => ({ dependency: probe.dependency, ok: false, detail: firstLine(error) }));
  try {
    return await Promise.race([checked, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `10 s`, `1.5 s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** The first line of what an error says. */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n", 1)[0]!.trim() || "unknown error";
}

/**
 * Why a request got no answer: `timeout` when `signal` ran out, else the system error code
 * (`ECONNREFUSED`), or fetch's own short reason when it refused to connect at all (`bad port`).
 */
export function transportError(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return "timeout";
  const cause = (error as { cause?: { code?: unknown; name?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.name === "string" && cause.name !== "Error") return cause.name;
  if (typeof cause?.message === "string" && cause.message.length > 0 && cause.message.length <= 40)
    return cause.message;
  return error instanceof Error ? error.name : "error";
}
