import { getRetryable, stampRetryable } from "@langchain/core/errors";
import { parseRetryAfterMs } from "@langchain/core/utils/async_caller";
import { countRetry } from "./retry-count.js";

/** Statuses a retry cannot fix: the request, the key or the permission is wrong. */
const NO_RETRY_STATUSES: ReadonlySet<number> = new Set([400, 401, 402, 403, 404, 405, 406, 407, 409, 413, 422]);

/** A rate limit that asks for a longer wait than this is reported instead of waited out. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * `onFailedAttempt` handler for the model's `AsyncCaller`: return to retry (with
 * backoff, counted for the call's `retries`), throw to give up. Retries 429 (honouring `retry-after`), 5xx, 408,
 * timeouts and network errors; never 400/401/403/404 and the like, a cancelled
 * call, an exhausted quota or an over-long context.
 *
 * Needed because `@langchain/core` 1.4's default handler gives up at once on a 429
 * without a `retry-after` header (it classifies it as "capacity" pressure), and
 * most OpenAI-compatible servers send no such header.
 */
export function modelRetryPolicy(error: unknown): void {
  if (typeof error !== "object" || error === null) return;
  if (isAbort(error)) throw stampRetryable(error, false);
  const status = statusOf(error);
  if (status !== undefined && NO_RETRY_STATUSES.has(status)) throw stampRetryable(error, false);
  if (status === 429) {
    if (isQuotaExhausted(error)) throw stampRetryable(error, false);
    const retryAfterMs = retryAfterOf(error);
    if (retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS) throw stampRetryable(error, false);
    // p-retry waits at least this long before the next attempt.
    if (retryAfterMs !== undefined) (error as { retryAfterMs?: number }).retryAfterMs = retryAfterMs;
    stampRetryable(error, true);
    countRetry();
    return;
  }
  if (getRetryable(error) === false) throw error;
  countRetry();
}

function isAbort(error: object): boolean {
  const { name, message } = error as { name?: unknown; message?: unknown };
  if (name === "AbortError") return true;
  return typeof message === "string" && (message.startsWith("Cancel") || message.startsWith("AbortError"));
}

function statusOf(error: object): number | undefined {
  const { status, statusCode, response } = error as {
    status?: unknown;
    statusCode?: unknown;
    response?: { status?: unknown };
  };
  const value = status ?? statusCode ?? response?.status;
  return typeof value === "number" ? value : undefined;
}

function isQuotaExhausted(error: object): boolean {
  const { code, error: body, message } = error as { code?: unknown; error?: { code?: unknown }; message?: unknown };
  if (code === "insufficient_quota" || body?.code === "insufficient_quota") return true;
  return typeof message === "string" && /insufficient[_ -]?quota|billing|credit balance/i.test(message);
}

function retryAfterOf(error: object): number | undefined {
  const headers = (error as { headers?: unknown }).headers;
  const read = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    if (headers && typeof headers === "object") {
      const value = (headers as Record<string, unknown>)[name];
      return typeof value === "string" ? value : undefined;
    }
    return undefined;
  };
  const milliseconds = Number(read("retry-after-ms"));
  if (read("retry-after-ms") !== undefined && Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  return parseRetryAfterMs(read("retry-after"));
}
