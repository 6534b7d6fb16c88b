/**
 * The stream of a model response went quiet for longer than the time limit. Named
 * `TimeoutError` so `modelFailureMessage` says the model did not answer in time; never
 * `AbortError`, which the OpenAI and Anthropic SDKs treat as a clean end of the stream
 * and would pass a cut-off answer as a whole one.
 */
export class ModelStreamIdleError extends Error {
  constructor(
    /** The inactivity limit that was passed, in ms. */
    readonly idleMs: number,
  ) {
    super(`The model response stream sent nothing for ${idleMs} ms (request timed out).`);
    this.name = "TimeoutError";
  }
}

/**
 * Wraps `fetch` so a response body that sends no bytes for `idleMs` fails with
 * `ModelStreamIdleError`. The SDKs' own `timeout` only covers the wait for the response
 * headers: once a streamed answer has started, a stalled server would hang the run
 * forever, while a slow but steady one must never be cut. Each chunk restarts the clock.
 */
export function idleTimeoutFetch(idleMs: number, base: typeof fetch = (input, init) => fetch(input, init)) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await base(input, init);
    if (!response.body) return response;
    return new Response(idleTimeoutStream(response.body, idleMs), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * The body, failed with `ModelStreamIdleError` when a read waits longer than `idleMs`. One timer
 * for the whole stream, restarted by each read (a model answer is hundreds of small chunks); it
 * fires only while a read waits, so a consumer that is slow to read is never taken for a silent
 * server.
 */
function idleTimeoutStream(source: ReadableStream<Uint8Array>, idleMs: number): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let waiting = false;
  let stalled: ModelStreamIdleError | undefined;
  let timer: NodeJS.Timeout | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setTimeout(() => {
        if (!waiting) return;
        stalled = new ModelStreamIdleError(idleMs);
        controller.error(stalled);
        // Closes the connection, so the server stops generating for nobody.
        reader.cancel(stalled).catch(() => undefined);
      }, idleMs);
    },
    async pull(controller) {
      waiting = true;
      timer!.refresh();
      try {
        const { done, value } = await reader.read();
        if (stalled) return;
        if (done) {
          clearTimeout(timer);
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        if (stalled) return;
        clearTimeout(timer);
        controller.error(error);
        reader.cancel(error).catch(() => undefined);
      } finally {
        waiting = false;
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
}
