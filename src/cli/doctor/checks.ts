import { checkToolKeys, describeToolKey, toolKeyCheckOf, type ToolKeyFinding } from "../../app/config-check.js";
import { serverRunLimits } from "../../app/run-limits.js";
import { builtInTools, openRunbooks } from "../../app/runbooks.js";
import { buildToolRegistry } from "../../app/tool-catalog.js";
import type { Env } from "../../config/env.js";
import { oidcSettingsOf } from "../../config/oidc-settings.js";
import type { ConfigFile } from "../../config/schema.js";
import { OpsPilotError } from "../../contracts/errors.js";
import { describeModel } from "../../models/provider.js";
import type { Logger } from "../../service/observability/logger.js";
import { openPostgres } from "../../storage/postgres/open-postgres.js";
import { openSqlite } from "../../storage/sqlite/open-sqlite.js";
import { createThreadTools, type RunbookSource } from "../../tools/index.js";
import { demoEstate } from "../../app/demo.js";
import { createMcpToolSource, type McpToolSource } from "../../tools/mcp/index.js";
import { toolViews, type ToolView } from "../../tools/tool-view.js";

/** How long doctor waits for each MCP server (handshake, then its tool list) and for the database. */
export const DOCTOR_WAIT_MS = 10_000;

/** One thing doctor looked at, as one line. */
export interface DoctorCheck {
  /** What: `model`, `database`, `mcp fs`, `runbooks`. */
  subject: string;
  /** What was found. */
  detail: string;
}

/** Everything doctor found. */
export interface DoctorReport {
  checks: DoctorCheck[];
  /** Every tool with its effective policy, as `npm run ask -- --tools` lists them. */
  tools: ToolView[];
  /** `tools` keys that may name tools of servers that are not up (their outage is a problem already). */
  unverified: ToolKeyFinding[];
  /** One line per problem; none means all good. */
  problems: string[];
  /** MCP servers that answered. */
  serversUp: number;
}

/** Output is dropped: every outage and runbook problem it would tell is read from the sources' status instead. */
const quiet: Logger = { error: () => undefined };

/**
 * Checks a configuration end to end, as `npm start` would use it: the model settings, the run
 * limits and sign-in settings, the database, every MCP server (all at once, each within
 * `DOCTOR_WAIT_MS`, no retries), the runbooks folder, and the `tools` keys against the tools
 * the servers listed. Never throws for what it checks; everything it opened is closed.
 */
export async function examine(env: Env, config: ConfigFile): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const problems: string[] = [];
  /** Runs a settings check; its line, when it has one, is listed, and a `ConfigError` it throws is a problem. */
  const settle = (subject: string, detail: () => string | undefined) => {
    try {
      const found = detail();
      if (found !== undefined) checks.push({ subject, detail: found });
    } catch (error) {
      if (!(error instanceof OpsPilotError)) throw error;
      checks.push({ subject, detail: error.message });
      problems.push(error.message);
    }
  };
  settle("config", () => describeConfig(env, config));
  settle("model", () => describeModel(env));
  settle("run limits", () => void serverRunLimits(env, config));
  settle("sign-in", () => (oidcSettingsOf(env, config) ? `OpenID provider ${env.OPSPILOT_OIDC_ISSUER}` : undefined));
  const [source, runbooks, databases] = await Promise.all([
    connectServers(config),
    openRunbooks(config, quiet),
    checkDatabases(env),
  ]);
  try {
    for (const database of databases) {
      checks.push({ subject: "database", detail: database.detail });
      if (!database.ok) problems.push(database.detail);
    }
    const health = source?.health() ?? [];
    for (const server of health) {
      const tools = source!.tools().filter((tool) => tool.source?.server === server.server).length;
      const why = server.reason === "connecting" ? `no answer within ${DOCTOR_WAIT_MS / 1000} s` : server.reason;
      checks.push({
        subject: `mcp ${server.server}`,
        detail: server.available ? `up, ${tools} tools` : `down: ${why}`,
      });
      if (!server.available) problems.push(`MCP server ${server.server} is down: ${why}`);
    }
    if (runbooks) {
      const status = runbooks.status();
      checks.push({
        subject: "runbooks",
        detail: `${status.folder}: ${count(status.files, "file")}, ${count(status.sections, "section")}`,
      });
      for (const problem of status.problems)
        problems.push(`runbooks: ${problem.path === "." ? "" : `${problem.path} `}${problem.message}`);
    }
    const { tools, keys } = catalog(config, source, runbooks);
    for (const finding of keys) if (finding.verdict === "unmatched") problems.push(describeToolKey(finding));
    return {
      checks,
      tools,
      unverified: keys.filter((finding) => finding.verdict === "unverified"),
      problems,
      serversUp: health.filter((server) => server.available).length,
    };
  } finally {
    await Promise.allSettled([source?.close(), runbooks?.close()]);
  }
}

/** Which config file is in use, and what it configures. */
function describeConfig(env: Env, config: ConfigFile): string {
  if (env.OPSPILOT_CONFIG === undefined) return "none (OPSPILOT_CONFIG is not set): the demo tools as they are";
  return `${env.OPSPILOT_CONFIG}: ${count(Object.keys(config.mcpServers).length, "MCP server")}, ${count(Object.keys(config.tools).length, "tool policy key")}${config.demo ? "" : ", demo tools off"}`;
}

/** The tool list `npm start` would build, on a private in-memory demo dataset, and the findings on the `tools` keys. */
function catalog(config: ConfigFile, source: McpToolSource | undefined, runbooks: RunbookSource | undefined) {
  const demo = openSqlite(":memory:");
  try {
    const builtIn = [
      ...builtInTools({ config, ops: demoEstate(demo.db), runbooks }),
      ...createThreadTools(demo.storage),
    ];
    const sources = source ? [source] : [];
    const registry = buildToolRegistry({ config, builtIn, sources, logger: quiet });
    return { tools: toolViews(registry), keys: checkToolKeys(toolKeyCheckOf({ config, builtIn, sources })) };
  } finally {
    demo.close();
  }
}

/** Connects every configured server once; a failed one is not retried while doctor runs. */
async function connectServers(config: ConfigFile): Promise<McpToolSource | undefined> {
  if (Object.keys(config.mcpServers).length === 0) return undefined;
  const source = createMcpToolSource(config.mcpServers, {
    connectTimeoutMs: DOCTOR_WAIT_MS,
    backoffMs: 3_600_000,
    maxBackoffMs: 3_600_000,
    logger: quiet,
  });
  await source.start();
  return source;
}

/** A database as doctor found it. */
interface DatabaseCheck {
  ok: boolean;
  detail: string;
}

/** The SQLite file (checkpoints, or with `DATABASE_URL` the demo dataset) and PostgreSQL when set, each opened and closed. */
async function checkDatabases(env: Env): Promise<DatabaseCheck[]> {
  const sqlite = checkSqlite(env.OPSPILOT_DB);
  return env.DATABASE_URL ? [sqlite, await checkPostgres(env.DATABASE_URL)] : [sqlite];
}

function checkSqlite(path: string): DatabaseCheck {
  try {
    openSqlite(path).close();
    return { ok: true, detail: `SQLite ${path} opens` };
  } catch (error) {
    const reason =
      error instanceof OpsPilotError ? error.message : `Cannot open the SQLite database ${path}: ${firstLine(error)}`;
    return { ok: false, detail: `OPSPILOT_DB: ${reason}` };
  }
}

async function checkPostgres(url: string): Promise<DatabaseCheck> {
  let timer: NodeJS.Timeout | undefined;
  const opening = openPostgres(url);
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), DOCTOR_WAIT_MS)));
  try {
    const backend = await Promise.race([opening, late]);
    if (backend === "late") {
      // Closed whenever it does open, so nothing outlives doctor for long.
      opening.then((opened) => opened.close()).catch(() => undefined);
      return { ok: false, detail: `DATABASE_URL: PostgreSQL did not answer within ${DOCTOR_WAIT_MS / 1000} s` };
    }
    await backend.close();
    return { ok: true, detail: "PostgreSQL (DATABASE_URL) connects" };
  } catch (error) {
    return { ok: false, detail: `DATABASE_URL: ${firstLine(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

/** `1 file`, `2 files`. */
function count(size: number, noun: string): string {
  return `${size} ${noun}${size === 1 ? "" : "s"}`;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n", 1)[0]!.trim() || "unknown error";
}
