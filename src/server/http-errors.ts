import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "../service/observability/logger.js";
import { OpsPilotError, QuotaExceededError } from "../contracts/errors.js";

/** The JSON body of every error response: a stable code and a sentence, never a stack. */
interface ErrorBody {
  error: { code: string; message: string };
}

/** A refusal decided by the HTTP layer itself (bad JSON, bad body, missing token). */
export class RequestError extends OpsPilotError {
  constructor(
    /** HTTP status to answer with. */
    override readonly status: ContentfulStatusCode,
    code: string,
    message: string,
  ) {
    super(code, message, status);
  }
}

/** Builds an error body. */
function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}

/** Answers an error as `{ error: { code, message } }` with its status. */
export function errorResponse(c: Context, status: ContentfulStatusCode, code: string, message: string): Response {
  return c.json(errorBody(code, message), status);
}

/**
 * The app's global error handler: known refusals keep their code and status, everything
 * else is logged and answered as a plain 500 without internals.
 */
export function makeErrorHandler(logger: Logger): ErrorHandler {
  return (error, c) => {
    // Refusals keep their code and status; application faults (status 500) fall through to the log.
    if (error instanceof QuotaExceededError) {
      c.header("Retry-After", String(error.retryAfterSeconds));
      const body = {
        error: { code: error.code, message: error.message, quota: error.quota, resetsAt: error.resetsAt },
      };
      return c.json(body, 429);
    }
    if (error instanceof OpsPilotError && error.status < 500) {
      return errorResponse(c, error.status as ContentfulStatusCode, error.code, error.message);
    }
    if (error instanceof HTTPException && error.status < 500) {
      return errorResponse(c, error.status as ContentfulStatusCode, "bad_request", error.message || "Bad request");
    }
    logger.error(`${c.req.method} ${c.req.path} failed`, error);
    return errorResponse(c, 500, "internal", "Internal error");
  };
}
