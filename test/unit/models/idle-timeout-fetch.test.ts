import { describe, expect, it } from "vitest";
import { idleTimeoutFetch, ModelStreamIdleError } from "../../../src/models/idle-timeout-fetch.js";

const encoder = new TextEncoder();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fetch whose body sends `pieces`, waiting `gapsMs[i]` before piece i; `stallAfter` pieces, it goes silent. */
function fakeFetch(pieces: string[], gapsMs: number[], stallAfter = Infinity) {
  let cancelled: unknown;
  const fetch = (async () => {
    let index = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (index >= stallAfter) return new Promise<void>(() => undefined);
        if (index >= pieces.length) return controller.close();
        await sleep(gapsMs[index] ?? 0);
        controller.enqueue(encoder.encode(pieces[index]!));
        index += 1;
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    return new Response(body);
  }) as unknown as typeof globalThis.fetch;
  return { fetch, cancelled: () => cancelled };
}

async function readAll(response: Response, pauseMs = 0): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    if (pauseMs > 0) await sleep(pauseMs);
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value);
  }
}

describe("idleTimeoutFetch", () => {
  it("passes a steady stream whole, however long it takes in all", async () => {
    const pieces = Array.from({ length: 12 }, (_, i) => `piece ${i};`);
    const { fetch } = fakeFetch(pieces, Array(12).fill(30));
    const response = await idleTimeoutFetch(100, fetch)("http://127.0.0.1/");
    expect(await readAll(response)).toBe(pieces.join(""));
  });

  it("fails a stream that goes silent past the limit and cancels the source", async () => {
    const source = fakeFetch(["a", "b", "c"], [0, 0, 0], 2);
    const response = await idleTimeoutFetch(80, source.fetch)("http://127.0.0.1/");
    const started = Date.now();
    const error = await readAll(response).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelStreamIdleError);
    expect((error as Error).name).toBe("TimeoutError");
    expect(Date.now() - started).toBeGreaterThanOrEqual(70);
    expect(source.cancelled()).toBeInstanceOf(ModelStreamIdleError);
  });

  it("never takes a consumer slow to read for a silent server", async () => {
    const pieces = ["one ", "two ", "three"];
    const { fetch } = fakeFetch(pieces, [0, 0, 0]);
    const response = await idleTimeoutFetch(50, fetch)("http://127.0.0.1/");
    // Each read comes well after the limit: the data was there, nothing waited on the server.
    expect(await readAll(response, 120)).toBe("one two three");
  });
});
