/**
 * Runs one model call with an abort signal of its own, aborted when `signal` is. The OpenAI
 * SDK adds an abort listener to each request's signal and never removes it: handed a run's
 * signal, every call would leave a listener (and the request's controller) on it until the run
 * ends, and on a signal that outlives runs (a graph served without the runtime) for good. The
 * call's own signal takes whatever a client leaves and goes with the call.
 */
export async function withCallSignal<T>(signal: AbortSignal, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (signal.aborted) return call(signal);
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await call(controller.signal);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
