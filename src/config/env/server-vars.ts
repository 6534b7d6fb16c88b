import { z } from "zod";
import { DURATION_HINT, DURATION_PATTERN, parseDuration } from "../../contracts/formats/duration.js";
import { integer } from "./values.js";

/** Where the state is stored and where the HTTP server listens. */
export const SERVER_VARS = {
  OPSPILOT_DB: z
    .string()
    .default("./.opspilot/opspilot.sqlite")
    .describe("SQLite file for checkpoints, the write journal and records"),
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// or postgresql:// URL" })
    .optional()
    .describe("PostgreSQL URL; when set, replaces SQLite so several processes can share threads"),
  HOST: z.string().default("127.0.0.1").describe("Interface the HTTP server binds to"),
  PORT: integer(0, 65_535).default(8787).describe("Port of the HTTP server (0 picks a free one)"),
  OPSPILOT_SHUTDOWN_GRACE_SECONDS: integer(0, 3_600)
    .default(30)
    .describe(
      "On SIGTERM or SIGINT, seconds running runs get to reach their next checkpoint (then handed to another process) before they are cancelled",
    ),
};

/** What the server keeps, how much it logs, and the config file it reads. */
export const UPKEEP_VARS = {
  OPSPILOT_RETENTION_DAYS: integer(1, 36_500)
    .optional()
    .describe(
      "Days of checkpoints, events, raw results and records the server keeps, pruning once a day (unset: keeps everything)",
    ),
  OPSPILOT_DEPENDENCY_PROBE_INTERVAL: z
    .string()
    .regex(DURATION_PATTERN, { error: DURATION_HINT })
    .refine((value) => parseDuration(value) !== undefined, { error: DURATION_HINT })
    .default("60s")
    .describe(
      'How often each process probes the model, the toolsets and the MCP servers for opspilot_dependency_up ("30s", "5m"; the first probe runs at start)',
    ),
  OPSPILOT_KUBERNETES_ACCESS_INTERVAL: z
    .string()
    .regex(DURATION_PATTERN, { error: DURATION_HINT })
    .refine((value) => parseDuration(value) !== undefined, { error: DURATION_HINT })
    .optional()
    .describe(
      'How often each process asks toolsets.kubernetes again which tools its credentials may use ("30s", "5m"; default 5m; the first review runs at start)',
    ),
  OPSPILOT_INCIDENT_RECONCILE_INTERVAL: z
    .string()
    .regex(DURATION_PATTERN, { error: DURATION_HINT })
    .refine((value) => parseDuration(value) !== undefined, { error: DURATION_HINT })
    .optional()
    .describe(
      'How often firing incidents are checked against Alertmanager (toolsets.alertmanager), so a silenced incident whose alerts ended resolves ("30s", "5m"; unset: 60s; the first check runs at start)',
    ),
  OPSPILOT_CHECKPOINTS: z
    .enum(["history", "latest"], { error: "must be history or latest" })
    .default("history")
    .describe(
      "Which checkpoints a thread keeps: every one, as LangGraph keeps them (history), or only the latest once each run ends or pauses (latest)",
    ),
  OPSPILOT_LOG_LEVEL: z
    .enum(["debug", "info", "warn", "error", "silent"], { error: "must be one of debug, info, warn, error, silent" })
    .default("info")
    .describe("Log verbosity"),
  OPSPILOT_CONFIG: z
    .string()
    .optional()
    .describe("Path of opspilot.config.json (MCP servers, tool policies, runbooks); unset: the demo tools as they are"),
};
