import { checkToolKeys, describeToolKey, toolKeyCheckOf, type ToolKeyFinding } from "../../app/config-check.js";
import { serverRunLimits } from "../../app/run-limits.js";
import { builtInTools, openRunbooks } from "../../app/sources/runbooks.js";
import { buildToolRegistry } from "../../app/sources/tool-catalog.js";
import type { Env } from "../../config/env.js";
import { oidcSettingsOf } from "../../config/oidc-settings.js";
import type { ConfigFile } from "../../config/schema.js";
import { OpsPilotError } from "../../contracts/errors.js";
import { parseModelSpec } from "../../models/providers/provider.js";
import type { Logger } from "../../service/observability/logger.js";
import { databaseProbe } from "../../service/probes/database-probes.js";
import { mcpProbes } from "../../service/probes/mcp-probes.js";
import { modelProbe } from "../../service/probes/model-probe.js";
import { noticeProbes } from "../../service/probes/notice-probes.js";
import { runProbes, type DependencyProbe, type ProbeResult } from "../../service/probes/probe.js";
import { slackProbe } from "../../service/probes/slack-probe.js";
import { toolsetProbes } from "../../service/probes/toolset-probes.js";
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

/** What doctor does besides checking: `--send-test` posts a test notice to each webhook. */
export interface ExamineOptions {
  sendTest?: boolean;
}

/**
 * Checks everything on-call depends on, as `npm start` would use it: the settings (model, run
 * limits, sign-in), then at once, each within its time limit and without retries, the model
 * (one small real request offering a tool), the database in use, each toolset, every MCP
 * server, the runbooks folder, the notice webhooks and Slack's settings; then the `tools`
 * keys against the tools the servers listed. Never throws for what it checks; everything it
 * opened is closed.
 */
export async function examine(env: Env, config: ConfigFile, options: ExamineOptions = {}): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const problems: string[] = [];
  /** Runs a settings check; its line, when it has one, is listed, and a `ConfigError` it throws is a problem. */
  const settle = (subject: string, detail: () => string | undefined): boolean => {
    try {
      const found = detail();
      if (found !== undefined) checks.push({ subject, detail: found });
      return true;
    } catch (error) {
      if (!(error instanceof OpsPilotError)) throw error;
      checks.push({ subject, detail: error.message });
      problems.push(error.message);
      return false;
    }
  };
  settle("config", () => describeConfig(env, config));
  const modelSettled = settle("model", () => void parseModelSpec(env));
  settle("run limits", () => void serverRunLimits(env, config));
  settle("sign-in", () => (oidcSettingsOf(env, config) ? `OpenID provider ${env.OPSPILOT_OIDC_ISSUER}` : undefined));
  const slack = slackProbe({ env, config });
  const probes: DependencyProbe[] = [
    ...(modelSettled ? [modelProbe(env)] : []),
    databaseProbe(env),
    ...toolsetProbes(config.toolsets ?? {}),
  ];
  const later = [...noticeProbes(env, { sendTest: options.sendTest === true }), ...(slack ? [slack] : [])];
  const [source, runbooks, found, noticed] = await Promise.all([
    connectServers(config),
    openRunbooks(config, quiet),
    runProbes(probes, DOCTOR_WAIT_MS),
    runProbes(later, DOCTOR_WAIT_MS),
  ]);
  try {
    const servers = source ? await runProbes(mcpProbes(source), DOCTOR_WAIT_MS) : [];
    for (const result of [...found, ...servers]) report(result, checks, problems);
    if (runbooks) {
      const status = runbooks.status();
      checks.push({
        subject: "runbooks",
        detail: `${status.folder}: ${count(status.files, "file")}, ${count(status.sections, "section")}`,
      });
      for (const problem of status.problems)
        problems.push(`runbooks: ${problem.path === "." ? "" : `${problem.path} `}${problem.message}`);
    }
    for (const result of noticed) report(result, checks, problems);
    const { tools, keys } = catalog(config, source, runbooks);
    for (const finding of keys) if (finding.verdict === "unmatched") problems.push(describeToolKey(finding));
    return {
      checks,
      tools,
      unverified: keys.filter((finding) => finding.verdict === "unverified"),
      problems,
      serversUp: servers.filter((server) => server.ok).length,
    };
  } finally {
    await Promise.allSettled([source?.close(), runbooks?.close()]);
  }
}

/** A probe's line under its subject (`mcp fs`, `webhook pause`), and a problem line when it failed, naming what failed. */
function report(result: ProbeResult, checks: DoctorCheck[], problems: string[]): void {
  const [kind, name] = result.dependency.split(":", 2) as [string, string | undefined];
  checks.push({ subject: name === undefined ? kind : `${kind} ${name}`, detail: result.detail });
  if (result.ok) return;
  if (kind === "mcp") problems.push(`MCP server ${name} is ${result.detail}`);
  else if (kind === "model") problems.push(`model ${result.detail}`);
  else problems.push(result.detail);
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

/** `1 file`, `2 files`. */
function count(size: number, noun: string): string {
  return `${size} ${noun}${size === 1 ? "" : "s"}`;
}
