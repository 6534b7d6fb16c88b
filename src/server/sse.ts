import type { Context } from "hono";
import type { StreamEvent } from "../contracts/events.js";
import type { Logger } from "../service/logger.js";

const encoder = new TextEncoder();

const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");

const ERROR_FRAME = encoder.encode(
  `event: error\ndata: ${JSON.stringify({ error: { code: "internal", message: "Internal error" } })}\n\n`,
);

/**
 * One event as an SSE frame: `event:` type, JSON `data:`, and `id:` the per-thread seq. An
 * `assistant_delta` frame has no `id:`: it is not recorded, so a client's Last-Event-ID always
 * names a recorded event and `GET /events?after=` replays the complete message instead.
 * Event types and seqs hold no line breaks, and JSON.stringify writes none.
 */
export function sseFrame(event: StreamEvent): string {
  const data = JSON.stringify(event);
  return event.type === "assistant_delta"
    ? `event: ${event.type}\ndata: ${data}\n\n`
    : `event: ${event.type}\ndata: ${data}\nid: ${event.seq}\n\n`;
}

/**
 * Streams a run's events as SSE frames (see `sseFrame`). Each frame is written as soon as the
 * run pushes its event: the body is pulled straight from the run's events, with no stream in
 * between, so a frame costs one read of the body. Idle streams get a `: keep-alive` comment
 * every `keepAliveMs`. When the client goes away the events are still drained to the end,
 * because the run and its recording continue; a client catches up with `GET /events?after=<last id>`.
 */
export function streamRunEvents(
  c: Context,
  events: AsyncIterable<StreamEvent>,
  options: { logger: Logger; keepAliveMs: number },
): Response {
  const { logger } = options;
  const iterator = events[Symbol.asyncIterator]();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  let open = true;
  const end = () => {
    open = false;
    clearInterval(keepAlive);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // A comment frame while a long model call or tool runs, so proxies do not close an idle stream.
      keepAlive = setInterval(() => {
        if (open) controller.enqueue(KEEP_ALIVE);
      }, options.keepAliveMs);
    },
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (!open) return;
        if (next.done) {
          end();
          controller.close();
        } else controller.enqueue(encoder.encode(sseFrame(next.value)));
      } catch (error) {
        logger.error(`run stream of ${c.req.path} failed`, error);
        if (!open) return;
        end();
        controller.enqueue(ERROR_FRAME);
        controller.close();
      }
    },
    cancel() {
      // The client left: the run goes on, its events are still taken (and recorded by the run) to the end.
      end();
      void (async () => {
        for (let next = await iterator.next(); !next.done; next = await iterator.next());
      })().catch((error: unknown) => logger.error(`run stream of ${c.req.path} failed`, error));
    },
  });
  c.header("Content-Type", "text/event-stream");
  c.header("Cache-Control", "no-cache");
  c.header("Connection", "keep-alive");
  c.header("Transfer-Encoding", "chunked");
  c.header("X-Accel-Buffering", "no");
  return c.body(body);
}
