import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseStore } from "@langchain/langgraph";
import { environmentVariables, loadEnv, type Env } from "../config/env.js";
import { loadConfig } from "../config/file.js";
import type { ConfigFile } from "../config/schema.js";
import type { OpsPilotGraph } from "../agent/graph.js";
import { demoModelOf, loadChatModel } from "./chat-model.js";
import { tracedModelOf, tracingFromEnv, type TracingEnv } from "./tracing.js";
import type { Runtime } from "../service/runtime/runtime.js";
import type { RuntimeSettings } from "../service/runtime/settings.js";
import { consoleLogger } from "../service/observability/logger.js";
import { withApprovalDefault } from "../tools/policy.js";
import type { IncidentAnswer } from "../service/incidents/reports.js";
import type { IncidentWorker } from "../service/incidents/worker.js";
import type { JobEngine } from "../service/jobs/engine.js";
import type { ProbeResult } from "../service/probes/probe.js";
import type { JobRunReport } from "../service/jobs/job.js";
import type { Storage } from "../storage/types.js";
import { createThreadTools, type RunbookSource } from "../tools/index.js";
import { OpsStore } from "../demo/index.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolSource } from "../tools/source.js";
import type { ToolDefinition } from "../tools/types.js";
import { builtInTools, openRunbooks, startRunbooks } from "./sources/runbooks.js";
import { healthReport, type HealthReport } from "./health.js";
import { buildToolRegistry, closeSources, connectToolSources, startToolSources } from "./sources/tool-catalog.js";
import { watchToolKeys } from "./config-check.js";
import { dailyQuotas, serverRunLimits } from "./run-limits.js";
import { wireLoop } from "./wire-loop.js";
import { contextBudgetOf } from "./hosted-graph.js";
import { ToolRateLimits } from "../execution/tool-rate-limits.js";
import { postgresBackend, sqliteBackend, type Backend } from "./backend.js";
import { createBackground, type SweepName } from "./background.js";
import { dependencyProbesOf } from "./dependencies.js";
import { noticesOf, type NoticeParts, type Notices } from "./notices/notices.js";
import { postmortemsOf, postmortemTools, type Postmortems } from "./notices/postmortems.js";
import { scheduleFindingsOf } from "./schedule-findings.js";

/** How to assemble opspilot; everything defaults to the environment (limits and quotas always come from it). */
export interface AppOptions
  extends
    Pick<RuntimeSettings, "defaults" | "onEvent" | "logger" | "shutdownGraceMs" | "currentRoles" | "keepHistory">,
    Pick<NoticeParts, "onWriteBackFailure"> {
  /** Validated settings (read from the environment when omitted). */
  env?: Env;
  /** SQLite file (with `DATABASE_URL`, only the demo dataset's); overrides `OPSPILOT_DB`. */
  dbPath?: string;
  /** Chat model; overrides `OPSPILOT_MODEL` (when omitted, `openApp` loads the configured one, `createApp` the demo model). */
  model?: BaseChatModel;
  /** Tools over the ops store; the demo tools by default. Left out when the config says `demo: false`. */
  tools?: (ops: OpsStore) => ToolDefinition[];
  /** The config file's content; read from `OPSPILOT_CONFIG` when omitted (no file: the demo tools as they are). */
  config?: ConfigFile;
  /**
   * Tools from outside the process, already connected; the app closes them. When omitted,
   * the config's `mcpServers` are connected (`openApp` waits for them, `createApp` does not).
   */
  toolSources?: readonly ToolSource[];
  /**
   * The config's runbooks folder, already indexed; the app closes it. When omitted, it is opened
   * from the config (`openApp` waits for the first index, `createApp` does not).
   */
  runbooks?: RunbookSource;
  /** Told once of each run on an incident's thread that ended, whoever started it (errors are logged). */
  onIncidentAnswer?: (report: IncidentAnswer) => void | Promise<void>;
  /** The `OTEL_*` variables traces are configured by (the process's environment by default). */
  tracingEnv?: TracingEnv;
  /** Shorter intervals for the background sweeps (tests); 5 s for incidents and the queue, 1 s for approval expiry. */
  sweepMs?: Partial<Record<SweepName, number>>;
  /** Told of every background job's run (the job metrics); must return at once. */
  onJobRun?: (report: JobRunReport) => void;
  /** Told of each `dependency-probes` run's results (the dependency metrics); without it that job is not registered. */
  onDependencyProbes?: (results: readonly ProbeResult[], at: number) => void;
}

/** An assembled opspilot: the runtime and the parts behind it. */
export interface App {
  env: Env;
  runtime: Runtime;
  graph: OpsPilotGraph;
  storage: Storage;
  /** LangGraph's store the graph is compiled with (`PostgresStore` with `DATABASE_URL`, else `SqliteStore`): past incidents. */
  store: BaseStore;
  ops: OpsStore;
  registry: ToolRegistry;
  /** The config file in use (the defaults when there is none). */
  config: ConfigFile;
  /** The runbooks folder behind `search_docs`, when the config names one. */
  runbooks?: RunbookSource;
  /** What `/healthz` answers: `degraded`, naming them, while configured MCP servers are down. */
  health(): HealthReport;
  /** The one background engine: every job on a clock (`jobs.jobs()` names them); started by `start`. */
  jobs: JobEngine;
  /** Delivers incidents' messages to their threads (alert intake queues to it). */
  incidentWorker: IncidentWorker;
  /** Slack threads and PagerDuty notes of incidents (alert intake tells it what each delivery did). */
  writeBack: Notices["writeBack"];
  /** Incidents' timelines and postmortem drafts. */
  postmortems: Postmortems;
  /** Sends the notice of a resolved incident (`OPSPILOT_INCIDENT_WEBHOOK`) in the background; never throws. */
  announceResolved: Notices["announceResolved"];
  /** Runs the background jobs from this process (a serving process does; idempotent). */
  start(): void;
  /** Stops the background jobs (draining them), then closes the runtime, the tool sources and the database. */
  close(): Promise<void>;
}

/** The config file an app runs with: the one given, else the one `OPSPILOT_CONFIG` names. */
function configOf(options: AppOptions, env: Env): ConfigFile {
  return options.config ?? loadConfig(env.OPSPILOT_CONFIG, environmentVariables());
}

/** Builds the tools, graph and runtime over a backend. */
function assemble(options: AppOptions, env: Env, model: BaseChatModel, backend: Backend): App {
  const config = configOf(options, env);
  const logger = options.logger ?? consoleLogger(env.OPSPILOT_LOG_LEVEL);
  const ops = new OpsStore(backend.opsDb, { ledger: backend.opsLedger });
  const sources = options.toolSources ?? startToolSources(config, logger);
  const runbooks = options.runbooks ?? startRunbooks(config, logger);
  const postmortems = postmortemsOf({ env, model, storage: backend.storage, logger });
  const findings = scheduleFindingsOf(env, config);
  const builtIn = [
    ...builtInTools({ config, ops, runbooks, demoTools: options.tools }),
    ...createThreadTools(backend.storage),
    ...postmortemTools(env, postmortems),
    ...findings.tools,
  ];
  // OPSPILOT_APPROVAL_EXPIRES_AFTER is every tool's approvals.expiresAfter unless the config file says otherwise.
  const tools = withApprovalDefault(config.tools, env.OPSPILOT_APPROVAL_EXPIRES_AFTER);
  const registry = buildToolRegistry({ config: { ...config, tools }, builtIn, sources, logger });
  watchToolKeys({ config, builtIn, sources, logger });
  // The environment's limits and prices are every run's defaults; options.defaults (tests, benchmarks) win over them.
  const limits = serverRunLimits(env, config);
  const notices = noticesOf(env, {
    ...{ storage: backend.storage, store: backend.store, logger, registry, postmortems },
    ...{ onIncidentAnswer: options.onIncidentAnswer, onWriteBackFailure: options.onWriteBackFailure },
  });
  const tracing = tracingFromEnv(options.tracingEnv ?? environmentVariables(), {
    model: tracedModelOf(env),
    logger,
    serverOf: (tool) => registry.get(tool)?.source?.server,
  });
  const { graph, runtime } = wireLoop({
    ...options,
    model,
    registry,
    ...backend,
    onEvent: (event) => {
      options.onEvent?.(event);
      notices.observe(event);
      tracing?.observe(event);
    },
    onPause: notices.pauseWebhook?.notify,
    onApprovalExpired: notices.expiryWebhook?.notify,
    defaults: { ...limits.defaults, ...options.defaults },
    limits: limits.policy,
    quotas: dailyQuotas(env),
    contextBudget: contextBudgetOf(env),
    rateLimits: new ToolRateLimits({
      store: backend.budgets,
      onStoreError: (message, error) => logger.error(message, error),
    }),
    keepHistory: options.keepHistory ?? env.OPSPILOT_CHECKPOINTS === "history",
    // Incident threads belong to the on-call team (docs/incidents.md).
    sharedOwners: [env.OPSPILOT_ALERT_USER.id],
  });
  const { jobs, incidentWorker } = createBackground({
    ...{ env, runtime, graph, storage: backend.storage, logger },
    ...{ sweepMs: options.sweepMs, onJobRun: options.onJobRun, schedules: config.schedules },
    probes: () => dependencyProbesOf(env, config, sources),
    onDependencyProbes: options.onDependencyProbes,
    toolSources: sources,
    ...{ alertmanager: config.toolsets?.alertmanager, onIncidentResolved: notices.reconciled },
    findings: () => findings.connect({ storage: backend.storage, notices }),
  });
  return {
    env,
    runtime,
    graph,
    storage: backend.storage,
    store: backend.store,
    ops,
    registry,
    config,
    runbooks,
    health: () => healthReport(sources),
    jobs,
    incidentWorker,
    writeBack: notices.writeBack,
    postmortems,
    announceResolved: notices.announceResolved,
    start: () => jobs.start(),
    async close() {
      // No job starts work once closing has begun; what runs drains first, then the runtime lets its runs end.
      await jobs.stop();
      await Promise.all([incidentWorker.close(), postmortems.idle()]);
      await runtime.close();
      await notices.close();
      await tracing?.shutdown();
      await closeSources(sources);
      await runbooks?.close();
      await backend.close();
    },
  };
}

/**
 * Assembles opspilot on one SQLite file: checkpoints, write journal, records, events and the
 * demo dataset. Ignores `DATABASE_URL`; `openApp` honours it. Builds the demo model itself; a
 * provider's model is passed as `model` (`loadChatModel`), as `openApp` does.
 */
export function createApp(options: AppOptions = {}): App {
  const env = options.env ?? loadEnv();
  // Read and checked before anything opens, so a bad file or profile leaves nothing to close.
  const config = configOf(options, env);
  serverRunLimits(env, config);
  const model = options.model ?? demoModelOf(env);
  return assemble({ ...options, config }, env, model, sqliteBackend(options.dbPath ?? env.OPSPILOT_DB));
}

/**
 * Assembles opspilot from the environment: with `DATABASE_URL`, checkpoints, journal, records, events, run
 * leases, `rateLimit` budgets and the demo estate's changes live in PostgreSQL, shared by every process;
 * the demo dataset's static part is rebuilt in this process's SQLite file `OPSPILOT_DB`. Without it, as `createApp`.
 */
export async function openApp(options: AppOptions = {}): Promise<App> {
  const env = options.env ?? loadEnv();
  const config = configOf(options, env);
  serverRunLimits(env, config);
  const model = options.model ?? (await loadChatModel(env));
  const logger = options.logger ?? consoleLogger(env.OPSPILOT_LOG_LEVEL);
  const toolSources = options.toolSources ?? (await connectToolSources(config, logger));
  const runbooks = options.runbooks ?? (await openRunbooks(config, logger));
  try {
    return await openBackend({ ...options, env, config, model, toolSources, runbooks }, env);
  } catch (error) {
    await closeSources(toolSources);
    await runbooks?.close();
    throw error;
  }
}

/** `openApp` once the config is read and the tool sources are connected. */
async function openBackend(options: AppOptions & { model: BaseChatModel }, env: Env): Promise<App> {
  if (!env.DATABASE_URL) return createApp(options);
  // The demo dataset's static part is the same in every process; its mutable state is shared.
  const backend = await postgresBackend(env.DATABASE_URL, options.dbPath ?? env.OPSPILOT_DB);
  return assemble(options, env, options.model, backend);
}
