import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { streamRunEvents } from "../../../src/server/sse.js";
import { EventChannel } from "../../../src/service/events/event-channel.js";
import type { StreamEvent } from "../../../src/contracts/events.js";

const logger = { error: () => undefined, warn: () => undefined, info: () => undefined };

const started: StreamEvent = { type: "run_started", threadId: "t", runId: "r", seq: 1, resumed: false };
const delta: StreamEvent = { type: "assistant_delta", threadId: "t", runId: "r", step: 1, text: "Hel" };
const finished: StreamEvent = {
  type: "run_finished",
  threadId: "t",
  runId: "r",
  seq: 2,
  stopReason: "final_answer",
  steps: 1,
  durationMs: 3,
  paused: false,
};

/** Serves `events` as a run stream and opens it. */
async function open(events: AsyncIterable<StreamEvent>) {
  const app = new Hono();
  app.post("/", (c) => streamRunEvents(c, events, { logger, keepAliveMs: 60_000 }));
  const response = await app.request("/", { method: "POST" });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  return {
    response,
    reader,
    read: async () => {
      const { done, value } = await reader.read();
      return done ? undefined : decoder.decode(value);
    },
  };
}

/** An event channel whose consumer's takes are logged. */
function loggedChannel() {
  const channel = new EventChannel<StreamEvent>();
  const taken: string[] = [];
  const events: AsyncIterable<StreamEvent> = {
    [Symbol.asyncIterator]() {
      const iterator = channel[Symbol.asyncIterator]();
      return {
        next: async () => {
          const next = await iterator.next();
          if (!next.done) taken.push(next.value.type);
          return next;
        },
      };
    },
  };
  return { channel, taken, events };
}

describe("run streams as SSE", () => {
  it("writes each event as its own frame as soon as it is pushed, ids only on recorded events", async () => {
    const { channel, events } = loggedChannel();
    const stream = await open(events);
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream");
    expect(stream.response.headers.get("cache-control")).toBe("no-cache");
    expect(stream.response.headers.get("x-accel-buffering")).toBe("no");
    channel.push(started);
    expect(await stream.read()).toBe(`event: run_started\ndata: ${JSON.stringify(started)}\nid: 1\n\n`);
    channel.push(delta);
    expect(await stream.read()).toBe(`event: assistant_delta\ndata: ${JSON.stringify(delta)}\n\n`);
    channel.push(finished);
    channel.close();
    expect(await stream.read()).toBe(`event: run_finished\ndata: ${JSON.stringify(finished)}\nid: 2\n\n`);
    expect(await stream.read()).toBeUndefined();
  });

  it("still takes the run's events to the end when the client goes away", async () => {
    const { channel, taken, events } = loggedChannel();
    const stream = await open(events);
    channel.push(started);
    await stream.read();
    await stream.reader.cancel();
    channel.push(delta);
    channel.push(finished);
    channel.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(taken).toEqual(["run_started", "assistant_delta", "run_finished"]);
  });

  it("ends with an error frame when the events fail", async () => {
    const failing: AsyncIterable<StreamEvent> = {
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.reject(new Error("boom")),
      }),
    };
    const stream = await open(failing);
    expect(await stream.read()).toBe(
      `event: error\ndata: ${JSON.stringify({ error: { code: "internal", message: "Internal error" } })}\n\n`,
    );
    expect(await stream.read()).toBeUndefined();
  });
});
