import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { answerLoopDelay } from "./loop-delay.js";

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
