import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { AppEnv } from "./auth.js";
import { RequestError } from "../http-errors.js";

/** Run starts a caller may make per minute when the server is given no limit (as `OPSPILOT_RATE_LIMIT_PER_MINUTE`). */
export const DEFAULT_RUN_STARTS_PER_MINUTE = 60;

/** How run starts are counted. */
export interface RunStartLimitOptions {
  /** Run starts allowed per caller per minute; 0 turns the limit off. */
  perMinute: number;
  /**
   * Count per authenticated user (tokens configured) rather than per client address: without
   * tokens every caller is the same local user, so only the address tells callers apart.
   */
  byUser: boolean;
}

/** The peer address of the socket, when the app is served by @hono/node-server. */
function remoteAddress(c: Context<AppEnv>): string {
  const bindings = c.env as { incoming?: IncomingMessage } | undefined;
  return bindings?.incoming?.socket.remoteAddress ?? "unknown";
}

/**
 * Middleware that refuses a run start beyond the limit with `429 rate_limited` and a
 * `Retry-After` in seconds. Every run start costs a model call or a new thread, which is
 * what a flood would spend; reads and cancels are never limited. Counts are kept in this
 * process's memory, so each process of a scaled-out deployment counts on its own.
 */
export function limitRunStarts({ perMinute, byUser }: RunStartLimitOptions): MiddlewareHandler<AppEnv> {
  if (perMinute === 0) return async (_c, next) => next();
  const limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  return async (c, next) => {
    const key = byUser ? `user:${c.get("user").id}` : `address:${remoteAddress(c)}`;
    try {
      await limiter.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      c.header("Retry-After", String(seconds));
      throw new RequestError(
        429,
        "rate_limited",
        `Too many runs started: at most ${perMinute} per minute. Try again in ${seconds} s.`,
      );
    }
    await next();
  };
}
