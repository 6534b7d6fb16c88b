import { Hono } from "hono";
import { stream } from "hono/streaming";
import type { RecordsPageRequest, Runtime } from "../service/runtime/runtime.js";
import type { RecordsCursor } from "../storage/records/records-page.js";
import type { Logger } from "../service/observability/logger.js";
import { requiresTokens, type AppEnv, type ServerAuth } from "./auth/auth.js";
import { RequestError } from "./http-errors.js";

/** The window a summary covers when the request names none. */
const DEFAULT_WINDOW_MS = 7 * 86_400_000;

/** `/api/records`: aggregates over every user's threads, for admins and viewers (or the local user). */
export function recordRoutes(options: { runtime: Runtime; auth?: ServerAuth; logger: Logger }): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get("/summary", async (c) => {
    const role = c.get("user").role;
    if (requiresTokens(options.auth) && role !== "admin" && role !== "viewer")
      throw new RequestError(403, "forbidden", "Only an admin or a viewer may read the records summary.");
    const until = parseInstant(c.req.query("until"), "until") ?? Date.now();
    const since = parseInstant(c.req.query("since"), "since") ?? until - DEFAULT_WINDOW_MS;
    if (since >= until) throw new RequestError(400, "invalid_request", "`since` must be before `until`.");
    return c.json(await options.runtime.recordsSummary({ since, until }));
  });
  routes.get("/export", async (c) => {
    // Every user's arguments and answers: admins only (or the local user).
    if (requiresTokens(options.auth) && c.get("user").role !== "admin")
      throw new RequestError(403, "forbidden", "Only an admin may export the records.");
    const until = parseInstant(c.req.query("until"), "until") ?? Date.now();
    const since = parseInstant(c.req.query("since"), "since") ?? 0;
    if (since >= until) throw new RequestError(400, "invalid_request", "`since` must be before `until`.");
    const lines = options.runtime.exportRecords({ since, until });
    c.header("Content-Type", "application/x-ndjson; charset=utf-8");
    c.header("Content-Disposition", 'attachment; filename="opspilot-records.jsonl"');
    return stream(
      c,
      async (body) => {
        for await (const line of lines) {
          if (body.aborted) return;
          await body.write(`${JSON.stringify(line)}\n`);
        }
      },
      // The status line is sent: a failure can only cut the export short, so the log says why.
      async (error) => options.logger.error("records export failed", error),
    );
  });
  return routes;
}

/** Runs per page of a thread's records when the request names no `limit`. */
const DEFAULT_PAGE_RUNS = 50;
/** The largest `limit` a page may ask for. */
const MAX_PAGE_RUNS = 500;

/** The page `?limit=&cursor=` asks for; a malformed value is a 400 `invalid_request`. */
export function readRecordsPageQuery(query: { limit?: string; cursor?: string }): RecordsPageRequest {
  const limit = query.limit === undefined || query.limit === "" ? DEFAULT_PAGE_RUNS : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_RUNS)
    throw new RequestError(400, "invalid_request", `\`limit\` must be a whole number from 1 to ${MAX_PAGE_RUNS}.`);
  if (query.cursor === undefined || query.cursor === "") return { limit };
  return { limit, after: decodeCursor(query.cursor) };
}

/** The opaque `nextCursor` a client passes back as `?cursor=`. */
export function encodeCursor(cursor: RecordsCursor): string {
  return Buffer.from(JSON.stringify([cursor.startedAt, cursor.runId])).toString("base64url");
}

function decodeCursor(text: string): RecordsCursor {
  try {
    const [startedAt, runId] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown[];
    if (typeof startedAt === "number" && typeof runId === "string") return { startedAt, runId };
  } catch {
    // Reported below, like any other malformed cursor.
  }
  throw new RequestError(400, "invalid_request", "`cursor` is not a cursor this API returned.");
}

/** An ISO 8601 date or date-time as epoch milliseconds; undefined when absent. */
function parseInstant(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  // Date.parse alone also accepts forms like "March 7", which would make a typo a silent window.
  const at = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(at))
    throw new RequestError(
      400,
      "invalid_request",
      `\`${name}\` must be an ISO 8601 date, e.g. 2026-11-01 or 2026-11-01T00:00:00Z.`,
    );
  return at;
}
