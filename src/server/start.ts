import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { serve } from "@hono/node-server";
import { environmentVariables, loadEnv, type Env } from "../config/env.js";
import { loadConfig } from "../config/file.js";
import { oidcSettingsOf } from "../config/oidc-settings.js";
import { ConfigError, OpsPilotError } from "../contracts/errors.js";
import { describeModel, isLoopback } from "../models/providers/provider.js";
import { createServer, type CreateServerOptions } from "./app.js";
import { openApp } from "../app/assemble.js";
import { currentRolesOf, requiresTokens, type ServerAuth } from "./auth/auth.js";
import { consoleLogger } from "../service/observability/logger.js";
import { oldestPauseSince, RunMetrics } from "../service/observability/metrics.js";
import { writeBackFailuresCounter } from "../service/observability/write-back-failures.js";
import { createReadiness, type Readiness } from "../service/observability/readiness.js";
import { describeDatabase, storageProbe } from "../service/probes/database-probes.js";
import { startAlertIntake } from "./incidents/intake.js";
import { slackIntakeOf } from "./slack/intake.js";

/** Where and how to bind, besides what the app is built from. */
export interface StartServerOptions extends CreateServerOptions {
  /** Interface to bind (127.0.0.1 by default). */
  host?: string;
  /** Port to bind; 0 picks a free one (8787 by default). */
  port?: number;
}

/** A listening server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** What `/readyz` answers; `setDraining(true)` takes the process out of service before it closes. */
  readiness: Readiness;
  /** Stops accepting connections, ends open ones and waits until everything is closed. */
  close(): Promise<void>;
}

/** Whether a host name or address to bind only accepts connections from this machine. */
function isLoopbackHost(host: string): boolean {
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return URL.canParse(`http://${bracketed}/`) && isLoopback(new URL(`http://${bracketed}/`));
}

/** Refuses a non-loopback interface without API tokens: every request would act as the local user, an admin. */
function assertBindable(host: string, auth: ServerAuth | undefined): void {
  if (!requiresTokens(auth) && !isLoopbackHost(host)) {
    throw new ConfigError(
      `Refusing to bind to ${host} without OPSPILOT_API_TOKENS or OPSPILOT_OIDC_ISSUER; set one or use HOST=127.0.0.1.`,
    );
  }
}

/** Binds the app with @hono/node-server and resolves once it listens. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  assertBindable(host, options.auth);
  const readiness = options.readiness ?? createReadiness({ started: true });
  const app = createServer({ ...options, readiness });
  // The runs route's 202s are this server's promise: it delivers every sender's queued messages.
  options.runtime.serveQueue();
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const listening = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 8787 }, () => resolve(listening));
    listening.once("error", reject);
  });
  server.on("clientError", answerMalformedRequest);
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    readiness,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Open run streams would otherwise keep the server alive until their runs end.
        if ("closeAllConnections" in server) server.closeAllConnections();
      }),
  };
}

/**
 * Starts the server `npm start` runs: the model from the environment (the offline demo model
 * by default), PostgreSQL at `DATABASE_URL` when set (else the SQLite file `OPSPILOT_DB`),
 * `HOST`/`PORT`, `OPSPILOT_API_TOKENS`, `OPSPILOT_METRICS_TOKEN`, `OPSPILOT_RATE_LIMIT_PER_MINUTE`,
 * `OPSPILOT_RETENTION_DAYS` (a daily prune) and the config file `OPSPILOT_CONFIG` (tools, MCP servers, policies).
 * The app's background jobs run once it listens. Closing drains first: `/readyz` says `draining`,
 * new runs are refused (503), running runs stop at their next checkpoint within
 * `OPSPILOT_SHUTDOWN_GRACE_SECONDS` (then are cancelled) and release their threads, and the jobs
 * stop and give their claims up, so another process takes every thread over at once.
 */
export async function startFromEnv(env: Env = loadEnv()): Promise<RunningServer> {
  const oidc = oidcSettingsOf(env, loadConfig(env.OPSPILOT_CONFIG, environmentVariables()));
  const auth: ServerAuth = {
    tokens: env.OPSPILOT_API_TOKENS,
    metricsToken: env.OPSPILOT_METRICS_TOKEN,
    ...(oidc ? { oidc } : {}),
  };
  assertBindable(env.HOST, auth);
  const logger = consoleLogger(env.OPSPILOT_LOG_LEVEL);
  const metrics = new RunMetrics({ processMetrics: true });
  const writeBackFailures = writeBackFailuresCounter(metrics.registry);
  // On shutdown, running runs get the grace to reach a checkpoint (another process continues them); the rest are cancelled.
  const opened = await openApp({
    env,
    logger,
    onEvent: (event) => metrics.observe(event),
    onJobRun: (report) => metrics.jobRan(report),
    onWriteBackFailure: (failure) => writeBackFailures.inc(failure),
    onDependencyProbes: (results, at) => metrics.dependenciesProbed(results, at),
    shutdownGraceMs: env.OPSPILOT_SHUTDOWN_GRACE_SECONDS * 1_000,
    currentRoles: currentRolesOf(auth),
  });
  metrics.watch({ health: opened.health, oldestPauseSince: () => oldestPauseSince(opened.runtime) });
  // Not ready until everything below is wired, nor while the database does not answer.
  const readiness = createReadiness({ database: storageProbe(opened.storage, describeDatabase(env)) });
  const intake = startAlertIntake(opened, logger);
  const slack = slackIntakeOf({
    env,
    config: opened.config,
    runtime: opened.runtime,
    currentRoles: currentRolesOf(auth),
    logger,
    onReplyFailure: (action) => metrics.slackReplyFailures.inc({ action }),
  });
  const server = await startServer({
    runtime: opened.runtime,
    auth,
    host: env.HOST,
    port: env.PORT,
    logger,
    metrics,
    rateLimitPerMinute: env.OPSPILOT_RATE_LIMIT_PER_MINUTE,
    tools: opened.registry,
    health: opened.health,
    alerts: intake.alerts,
    slack,
    readiness,
  }).catch(async (error: unknown) => {
    await slack?.approvals.close();
    await opened.close();
    throw error;
  });
  opened.start();
  readiness.markStarted();
  return {
    url: server.url,
    readiness,
    close: async () => {
      // Out of service at once; the API still answers (refusing new runs) while runs and jobs drain.
      readiness.setDraining(true);
      await Promise.all([opened.runtime.drain(), opened.jobs.stop()]);
      await server.close();
      await slack?.approvals.close();
      await opened.close();
    },
  };
}

/**
 * What `src/main.ts` calls: starts from the environment, prints the address, closes on
 * SIGINT/SIGTERM (exit 0 once drained: see `startFromEnv`'s close), and turns a start-up failure into one line: exit code 2 for bad
 * configuration (environment or config file, as the CLI), 1 for anything else.
 */
export async function runServerProcess(): Promise<void> {
  let server: RunningServer;
  let env: Env;
  try {
    env = loadEnv();
    server = await startFromEnv(env);
  } catch (error) {
    if (!(error instanceof OpsPilotError) && (error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    console.error(`opspilot: ${(error as Error).message}`);
    process.exitCode = error instanceof ConfigError ? 2 : 1;
    return;
  }
  console.log(`opspilot is listening on ${server.url} (model: ${describeModel(env)})`);
  console.log(`opspilot database: ${describeDatabase(env)}`);
  const stop = () => {
    server.readiness.setDraining(true);
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/**
 * Answers a request Node's HTTP parser refused before the app saw it (headers too large, a
 * body without framing) in the API's error shape, then closes the connection, which the
 * parser can no longer trust.
 */
function answerMalformedRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
  const status = tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request";
  const body = JSON.stringify({
    error: tooLarge
      ? { code: "headers_too_large", message: "The request headers are too large." }
      : { code: "bad_request", message: "The request is not valid HTTP." },
  });
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
