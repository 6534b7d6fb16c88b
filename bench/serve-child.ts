import { randomUUID } from "node:crypto";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { answerLoopDelay } from "./loop-delay.js";

/** What a benchmark server's run writes to its stream. */
export interface RunFrames {
  /** A numbered frame of opspilot's event types (`tool_call`, `run_finished`, …). */
  send(type: string, body?: Record<string, unknown>): Promise<void>;
  /** A piece of the answer's text, an unnumbered `assistant_delta` frame as opspilot streams it. */
  delta(text: string): Promise<void>;
}

/**
 * opspilot's run API as the benchmark's stand-in servers speak it, on the same framework (hono):
 * `POST /api/threads` gives a new thread id; `POST /api/threads/:threadId/runs` with
 * `{ message }` streams `run_started`, then the frames `run` writes, as server-sent events (a
 * body without a message string is a 400).
 */
export function runApi(run: (input: { message: string; threadId: string }, frames: RunFrames) => Promise<void>): Hono {
  const app = new Hono();
  app.post("/api/threads", (c) => c.json({ threadId: randomUUID() }, 201));
  app.post("/api/threads/:threadId/runs", async (c) => {
    const { message } = (await c.req.json()) as { message?: unknown };
    if (typeof message !== "string") return c.json({ error: { code: "invalid_request", message: "message" } }, 400);
    const threadId = c.req.param("threadId");
    return streamSSE(c, async (stream) => {
      let seq = 0;
      const frames: RunFrames = {
        send: (type, body = {}) =>
          stream.writeSSE({ event: type, id: String(++seq), data: JSON.stringify({ type, threadId, seq, ...body }) }),
        delta: (text) =>
          stream.writeSSE({ event: "assistant_delta", data: JSON.stringify({ type: "assistant_delta", text }) }),
      };
      await frames.send("run_started");
      await run({ message, threadId }, frames);
    });
  });
  return app;
}

/**
 * Serves `app` as a benchmark's child server on 127.0.0.1 (a free port), speaking
 * `load-server.ts`'s protocol: prints `{"url":…}` once listening, answers `loop-delay` and `cpu`
 * lines, and stops when its stdin closes, or by itself after `hardLimitMs`.
 */
export function serveChild(app: Hono, hardLimitMs: number): void {
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${info.port}` })}\n`);
  });
  answerLoopDelay();
  const shutdown = () => server.close(() => process.exit(0));
  process.stdin.on("end", shutdown);
  setTimeout(shutdown, hardLimitMs).unref();
}
