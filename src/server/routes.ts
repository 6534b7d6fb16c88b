import { Hono, type Context } from "hono";
import { z } from "zod";
import { formatZodIssues } from "../contracts/formats/zod-issues.js";
import { RequestError } from "./http-errors.js";
import { DEFAULT_THREAD_LIST_LIMIT, MAX_THREAD_LIST_LIMIT } from "../service/events/thread-list.js";
import { encodeCursor, readRecordsPageQuery } from "./record-routes.js";
import type { Runtime } from "../service/runtime/runtime.js";
import type { AppEnv } from "./auth/auth.js";
import { readEventsQuery, readResumeBody, readRunBody } from "./bodies.js";
import { errorResponse } from "./http-errors.js";
import type { Logger } from "../service/observability/logger.js";
import { streamRunEvents } from "./sse.js";
import { OpsPilotError, ThreadBusyError, ThreadPausedError, ThreadUnfinishedError } from "../contracts/errors.js";
import { strategyHint } from "../service/runtime/multitask-strategy.js";

/** What the thread routes need. */
export interface ThreadRoutesOptions {
  /** Drives the runs. */
  runtime: Runtime;
  /** Receives failures that clients only see as `internal`. */
  logger: Logger;
  /** Interval of the keep-alive comments on idle event streams (15 s by default). */
  keepAliveMs?: number;
}

/**
 * The `/api/threads` routes. Refusals (unknown thread, busy, bad resume) come from the
 * runtime before any stream is opened, so they reach the error handler as 4xx responses.
 */
export function threadRoutes({ runtime, logger, keepAliveMs = 15_000 }: ThreadRoutesOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.post("/", async (c) => {
    const threadId = await runtime.createThread(c.get("user"));
    return c.json({ threadId }, 201);
  });

  // The caller's own threads (`mine=1`); with `shared=1`, an operator's or admin's list adds the on-call team's.
  routes.get("/", async (c) => {
    const { limit, shared } = readThreadListQuery(c);
    return c.json({ threads: await runtime.listThreads(c.get("user"), { limit, shared }) });
  });

  routes.get("/:threadId", async (c) => {
    return c.json(await runtime.getThread(c.req.param("threadId"), c.get("user")));
  });

  routes.get("/:threadId/events", async (c) => {
    const after = readEventsQuery(c);
    const events = await runtime.eventsAfter(c.req.param("threadId"), c.get("user"), after);
    return c.json({ events });
  });

  routes.get("/:threadId/records", async (c) => {
    const page = readRecordsPageQuery({ limit: c.req.query("limit"), cursor: c.req.query("cursor") });
    const { next, ...records } = await runtime.getRecords(c.req.param("threadId"), c.get("user"), page);
    return c.json({ ...records, nextCursor: next ? encodeCursor(next) : null });
  });

  routes.get("/:threadId/results/:callId", async (c) => {
    const found = await runtime.getResult(c.req.param("threadId"), c.get("user"), c.req.param("callId"));
    if (!found) return errorResponse(c, 404, "result_not_found", `No stored result for call ${c.req.param("callId")}.`);
    return c.json(found);
  });

  // A message the thread cannot take now is refused (409), queued (202) or put first, by its multitaskStrategy.
  routes.post("/:threadId/runs", async (c) => {
    const { message, options, multitaskStrategy } = await readRunBody(c);
    const request = { threadId: c.req.param("threadId"), message, user: c.get("user"), options, multitaskStrategy };
    const posted = await runtime.postMessage(request).catch(withStrategyHint);
    if (posted.kind === "queued")
      return c.json({ queued: true, messageId: posted.messageId, position: posted.position }, 202);
    return streamRunEvents(c, posted.events, { logger, keepAliveMs });
  });

  routes.post("/:threadId/resume", async (c) => {
    const resume = await readResumeBody(c);
    const events = await runtime.resumeRun({ threadId: c.req.param("threadId"), resume, user: c.get("user") });
    return streamRunEvents(c, events, { logger, keepAliveMs });
  });

  routes.post("/:threadId/recover", async (c) => {
    const events = await runtime.recoverRun(c.req.param("threadId"), c.get("user"));
    return streamRunEvents(c, events, { logger, keepAliveMs });
  });

  routes.post("/:threadId/cancel", async (c) => {
    const cancelled = await runtime.cancelRun(c.req.param("threadId"), c.get("user"));
    return c.json({ cancelled }, 202);
  });

  return routes;
}

/** A thread that cannot take the message now: the 409 also names the strategies the client may send instead. */
function withStrategyHint(error: unknown): never {
  if (error instanceof ThreadBusyError || error instanceof ThreadPausedError || error instanceof ThreadUnfinishedError)
    throw new OpsPilotError(error.code, error.message + strategyHint(error.code));
  throw error;
}

const LIMIT_ERROR = { error: `must be an integer from 1 to ${MAX_THREAD_LIST_LIMIT}` };

/** Query of `GET /api/threads`: `mine` (`1` or `true`, or absent), `shared` (the same) and `limit`; nothing else. */
const ThreadListQuerySchema = z
  .object({
    mine: z
      .enum(["1", "true"], { error: 'must be "1" or "true" (the list only ever holds your own threads)' })
      .optional(),
    shared: z
      .enum(["1", "true"], {
        error: 'must be "1" or "true" (adds the on-call team\'s threads for an operator or admin)',
      })
      .optional(),
    limit: z.coerce
      .number(LIMIT_ERROR)
      .int(LIMIT_ERROR)
      .min(1, LIMIT_ERROR)
      .max(MAX_THREAD_LIST_LIMIT, LIMIT_ERROR)
      .default(DEFAULT_THREAD_LIST_LIMIT),
  })
  .strict();

/** Reads the thread list's query; anything else, or a bad value, is a 400 `invalid_request`. */
function readThreadListQuery(c: Context<AppEnv>): { limit: number; shared: boolean } {
  const query = c.req.queries();
  const single: Record<string, string | undefined> = {};
  for (const [key, values] of Object.entries(query)) {
    if (values.length > 1) throw new RequestError(400, "invalid_request", `${key}: give it at most once`);
    single[key] = values[0];
  }
  const parsed = ThreadListQuerySchema.safeParse(single);
  if (!parsed.success) throw new RequestError(400, "invalid_request", formatZodIssues(parsed.error));
  return { limit: parsed.data.limit, shared: parsed.data.shared !== undefined };
}
