import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Runtime } from "../service/runtime.js";
import type { RunMetrics } from "../service/metrics.js";
import { authenticate, requiresTokens, type AppEnv, type ServerAuth } from "./auth.js";
import { MAX_BODY_BYTES } from "./bodies.js";
import { consoleLogger, errorResponse, makeErrorHandler, type ServerLogger } from "./http-errors.js";
import { threadRoutes } from "./routes.js";
import { securityHeaders, PUBLIC_DIR, servePage } from "./static.js";

/** What the HTTP app is built from. */
export interface CreateServerOptions {
  /** Drives threads and runs. */
  runtime: Runtime;
  /** API tokens; without any, every request acts as the local user. */
  auth?: ServerAuth;
  /** Where failures are logged (console by default). */
  logger?: ServerLogger;
  /** Directory of the page's assets (the project's `public/` by default). */
  publicDir?: string;
  /** Run metrics served at `/metrics` in the Prometheus text format. */
  metrics?: RunMetrics;
  /** Interval of the keep-alive comments on idle event streams (15 s by default). */
  sseKeepAliveMs?: number;
}

/** Builds the Hono app: `/healthz`, the `/api` routes and the page. */
export function createServer(options: CreateServerOptions): Hono<AppEnv> {
  const logger = options.logger ?? consoleLogger();
  const app = new Hono<AppEnv>();
  app.onError(makeErrorHandler(logger));
  app.notFound((c) => errorResponse(c, 404, "not_found", `No route for ${c.req.method} ${c.req.path}.`));

  app.use("*", securityHeaders());
  app.get("/healthz", (c) => c.json({ ok: true }));
  const metrics = options.metrics;
  if (metrics) {
    app.get("/metrics", async (c) =>
      c.body(await metrics.registry.metrics(), 200, { "content-type": metrics.registry.contentType }),
    );
  }

  app.use(
    "/api/*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => errorResponse(c, 413, "body_too_large", `The request body exceeds ${MAX_BODY_BYTES} bytes.`),
    }),
  );
  app.use("/api/*", authenticate(options.auth));
  app.route("/api/threads", threadRoutes({ runtime: options.runtime, logger, keepAliveMs: options.sseKeepAliveMs }));
  app.get("/api/records/summary", async (c) => {
    // Figures over every user's threads: the local user, or an admin when tokens are in use.
    if (requiresTokens(options.auth) && c.get("user").role !== "admin")
      return errorResponse(c, 403, "forbidden", "Only an admin may read the records summary.");
    return c.json(await options.runtime.recordsSummary());
  });

  app.get("*", servePage(options.publicDir ?? PUBLIC_DIR));
  return app;
}
