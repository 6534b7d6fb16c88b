/** One attempt's outcome as `retriedCall` reads it: done, or failed with whether another attempt may help. */
export type AttemptOutcome<T> =
  { ok: true; value: T } | { ok: false; error: string; retry: boolean; retryAfterMs?: number };

/** How hard a call to an outside API is pushed. */
export interface RetryPolicy {
  /** Attempts, the first included. */
  attempts: number;
  /** Wait before the first retry without a `Retry-After`, doubled each time, in ms. */
  backoffMs: number;
  /** Longest `Retry-After` waited for; a longer one ends the call, in ms. */
  maxRetryAfterMs: number;
}

/**
 * Runs `attempt` until it succeeds, refuses for good, runs out of attempts, or `signal` aborts
 * (a closing process). A rate limit's `Retry-After` is waited when it is short enough; other
 * retryable failures back off exponentially. Resolves with the value or the last error.
 */
export async function retriedCall<T>(
  attempt: (signal: AbortSignal) => Promise<AttemptOutcome<T>>,
  policy: RetryPolicy,
  signal: AbortSignal,
): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  let error = "the process closed first";
  for (let tried = 1; tried <= policy.attempts && !signal.aborted; tried += 1) {
    const outcome = await attempt(signal);
    if (outcome.ok) return outcome;
    error = signal.aborted ? "the process closed first" : outcome.error;
    if (!outcome.retry || tried === policy.attempts) break;
    const waitMs = outcome.retryAfterMs ?? policy.backoffMs * 2 ** (tried - 1);
    if (waitMs > policy.maxRetryAfterMs)
      return { ok: false, error: `${error}; asked to wait ${Math.ceil(waitMs / 1000)} s` };
    await sleep(waitMs, signal);
    if (signal.aborted) error = "the process closed first";
  }
  return { ok: false, error };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
