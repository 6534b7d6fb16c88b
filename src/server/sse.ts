import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { StreamEvent } from "../contracts/events.js";
import type { Logger } from "../service/observability/logger.js";

/**
 * Streams a run's events as SSE frames (`event:` type, `id:` per-thread seq, JSON `data:`).
 * An `assistant_delta` frame has no `id:`: it is not recorded, so a client's Last-Event-ID
 * always names a recorded event and `GET /events?after=` replays the complete message instead.
 * Idle streams get a `: keep-alive` comment every `keepAliveMs`. When the client goes away
 * the events are still drained to the end, because the run and
 * its recording continue; a client catches up with `GET /events?after=<last id>`.
 */
export function streamRunEvents(
  c: Context,
  events: AsyncIterable<StreamEvent>,
  options: { logger: Logger; keepAliveMs: number },
): Response {
  const { logger } = options;
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (stream) => {
    // A comment frame while a long model call or tool runs, so proxies do not close an idle stream.
    const keepAlive = setInterval(() => {
      if (!stream.aborted) stream.write(": keep-alive\n\n").catch(() => undefined);
    }, options.keepAliveMs);
    try {
      for await (const event of events) {
        if (stream.aborted) continue;
        if (event.type === "assistant_delta") await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
        else await stream.writeSSE({ event: event.type, id: String(event.seq), data: JSON.stringify(event) });
      }
    } catch (error) {
      logger.error(`run stream of ${c.req.path} failed`, error);
      if (!stream.aborted) {
        await stream.writeSSE({
          event: "error",
          data: JSON.stringify({ error: { code: "internal", message: "Internal error" } }),
        });
      }
    } finally {
      clearInterval(keepAlive);
    }
  });
}
