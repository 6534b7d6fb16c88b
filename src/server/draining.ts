import type { MiddlewareHandler } from "hono";
import type { Readiness } from "../service/observability/readiness.js";
import type { AppEnv } from "./auth/auth.js";
import { errorResponse } from "./http-errors.js";

/** The routes that start a run on an existing thread: refused while the process drains. */
export const RUN_PATHS = [
  "/api/threads/:threadId/runs",
  "/api/threads/:threadId/resume",
  "/api/threads/:threadId/recover",
];

/** Seconds a refused client waits before it sends again: about the time a balancer takes to see `/readyz` fail. */
export const DRAINING_RETRY_AFTER_SECONDS = 5;

/**
 * After SIGTERM a process starts no run: a request that would start one is answered
 * `503 shutting_down` with `Retry-After`, so the client sends it again and the balancer, which
 * reads `/readyz`, gives it to another replica. Reads, cancels and new threads are still served.
 */
export function refuseRunsWhileDraining(readiness: Pick<Readiness, "draining">): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!readiness.draining) return next();
    c.header("Retry-After", String(DRAINING_RETRY_AFTER_SECONDS));
    return errorResponse(
      c,
      503,
      "shutting_down",
      "This server is shutting down and starts no new run; send the request again and another replica will take it.",
    );
  };
}
