import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { HealthReport } from "../app/health.js";
import type { Runtime } from "../service/runtime/runtime.js";
import type { RunMetrics } from "../service/observability/metrics.js";
import { createReadiness, type Readiness } from "../service/observability/readiness.js";
import { ssoConfigRoute, ssoRoutes } from "./auth/sso-routes.js";
import { apiCredentials } from "../service/auth/api-credentials.js";
import { authenticate, authorizeMetrics, requiresTokens, type AppEnv, type ServerAuth } from "./auth/auth.js";
import { MAX_BODY_BYTES } from "./bodies.js";
import { errorResponse, makeErrorHandler } from "./http-errors.js";
import { QuotaExceededError } from "../contracts/errors.js";
import { consoleLogger, type Logger } from "../service/observability/logger.js";
import { DEFAULT_RUN_STARTS_PER_MINUTE, limitRunStarts } from "./auth/rate-limit.js";
import { threadRoutes } from "./routes.js";
import { toolRoutes } from "./tool-routes.js";
import { recordRoutes } from "./record-routes.js";
import type { ToolRegistry } from "../tools/registry.js";
import { securityHeaders, PUBLIC_DIR, servePage } from "./static.js";
import { dashboardRoutes } from "./dashboard.js";
import { alertIntakeRoutes, incidentRoutes, type AlertIntake } from "./incidents/routes.js";
import { slackRoutes, type SlackIntake } from "./slack/route.js";
import { refuseRunsWhileDraining, RUN_PATHS } from "./draining.js";

/** What the HTTP app is built from. */
export interface CreateServerOptions {
  /** Drives threads and runs. */
  runtime: Runtime;
  /** API tokens and the metrics token; without any, every request acts as the local user. */
  auth?: ServerAuth;
  /** Where failures are logged (console by default). */
  logger?: Logger;
  /** Directory of the page's assets (the project's `public/` by default). */
  publicDir?: string;
  /** What `/healthz` answers (`{ ok: true, status: "ok" }` when omitted). */
  health?: () => HealthReport;
  /** What `/readyz` answers (ready, with no database check, when omitted). */
  readiness?: Readiness;
  /** Run metrics served at `/metrics` in the Prometheus text format. */
  metrics?: RunMetrics;
  /** Interval of the keep-alive comments on idle event streams (15 s by default). */
  sseKeepAliveMs?: number;
  /**
   * Run starts (new threads, messages, resumes, recoveries) per API user, or per client address
   * without tokens, per minute; 0 turns the limit off (60 by default, as `OPSPILOT_RATE_LIMIT_PER_MINUTE`).
   */
  rateLimitPerMinute?: number;
  /** The tools served at `GET /api/tools` with their effective policy (the route is absent without it). */
  tools?: ToolRegistry;
  /** Alert intake and incidents (`/api/alerts/*`, `/api/incidents`); intake answers 404 without its token. */
  alerts?: AlertIntake;
  /** Slack's Approve and Reject buttons (`/api/integrations/slack/interactions`); 404 without it. */
  slack?: SlackIntake;
}

/** The routes that start a run or create a thread, and so are rate limited. */
const RUN_START_PATHS = [
  "/api/threads",
  "/api/threads/:threadId/runs",
  "/api/threads/:threadId/resume",
  "/api/threads/:threadId/recover",
];

/** Builds the Hono app: `/healthz`, `/readyz`, the `/api` routes and the page. */
export function createServer(options: CreateServerOptions): Hono<AppEnv> {
  const logger = options.logger ?? consoleLogger();
  const app = new Hono<AppEnv>();
  const handleError = makeErrorHandler(logger);
  app.onError((error, c) => {
    if (error instanceof QuotaExceededError) options.metrics?.quotaRefused(error.quota);
    return handleError(error, c);
  });
  app.notFound((c) => errorResponse(c, 404, "not_found", `No route for ${c.req.method} ${c.req.path}.`));

  app.use("*", securityHeaders());
  // Always 200 while the process serves; a down MCP server is `degraded` in the body (see HealthReport).
  app.get("/healthz", (c) => c.json(options.health?.() ?? { ok: true, status: "ok" }));
  // 503 while starting, draining or without its database, so a balancer sends traffic elsewhere.
  const readiness = options.readiness ?? createReadiness({ started: true });
  app.get("/readyz", async (c) => {
    const report = await readiness.check();
    return c.json(report, report.ready ? 200 : 503);
  });
  const metrics = options.metrics;
  if (metrics) {
    app.get("/metrics", authorizeMetrics(options.auth), async (c) =>
      c.body(await metrics.registry.metrics(), 200, { "content-type": metrics.registry.contentType }),
    );
  }

  // Before the API's body cap and token check: Alertmanager has its own token and larger bodies.
  app.route("/api/alerts", alertIntakeRoutes(options.alerts));
  // Also before them: Slack signs each request instead of sending a token.
  app.route("/api/integrations/slack", slackRoutes(options.slack));
  app.use(
    "/api/*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => {
        // The rest of the body stays unread and the connection is dropped soon after, with any
        // request the client sent next on it; saying so makes the client use a fresh one.
        c.header("Connection", "close");
        return errorResponse(c, 413, "body_too_large", `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
      },
    }),
  );
  // One set of credentials (one cache of the provider's keys) for the API and the page's sign-in.
  const credentials = apiCredentials(options.auth ?? {});
  app.use("/api/*", authenticate(options.auth, credentials));
  app.on("POST", RUN_PATHS, refuseRunsWhileDraining(readiness));
  app.on(
    "POST",
    RUN_START_PATHS,
    limitRunStarts({
      perMinute: options.rateLimitPerMinute ?? DEFAULT_RUN_STARTS_PER_MINUTE,
      byUser: requiresTokens(options.auth),
    }),
  );
  app.route("/api/threads", threadRoutes({ runtime: options.runtime, logger, keepAliveMs: options.sseKeepAliveMs }));
  if (options.tools) app.route("/api/tools", toolRoutes(options.tools));
  app.route("/api/incidents", incidentRoutes(options.alerts?.incidents, options.alerts?.postmortems));
  app.route("/api/records", recordRoutes({ runtime: options.runtime, auth: options.auth, logger }));

  // Single sign-on for the page: whether it is offered, and the authorization-code flow when it is.
  const oidc = options.auth?.oidc;
  app.route("/auth", ssoConfigRoute(oidc));
  if (oidc?.clientId) app.route("/auth", ssoRoutes({ ...oidc, clientId: oidc.clientId }, credentials, logger));

  app.route("/", dashboardRoutes(options.publicDir ?? PUBLIC_DIR));
  app.get("*", servePage(options.publicDir ?? PUBLIC_DIR));
  return app;
}
