import { loadEnv, type Env } from "../config/env.js";
import { OpsPilotError } from "../contracts/errors.js";
import { openPostgres } from "../storage/postgres/open-postgres.js";
import { openSqlite } from "../storage/sqlite/open-sqlite.js";
import type { PruneReport } from "../storage/retention/prune.js";
import { parseAge } from "../service/jobs/retention.js";

/** What `npm run prune` runs with. */
export interface PruneCliOptions {
  argv: string[];
  /** The environment (`DATABASE_URL` or `OPSPILOT_DB`); read from the process when absent. */
  env?: Env;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

const USAGE = `Usage: npm run prune -- --older-than <age>

Removes checkpoints, events, raw results and records older than <age> (30d, 12h, 90m) from
the database the server uses (DATABASE_URL, else OPSPILOT_DB). Each thread keeps its latest
checkpoint, so a waiting pause stays resumable, unless the whole thread is older.
`;

/** `npm run prune -- --older-than 30d`: prunes once and prints what it removed. Resolves to the exit code. */
export async function runPrune(options: PruneCliOptions): Promise<number> {
  const { argv, stdout, stderr } = options;
  if (argv.includes("--help") || argv.includes("-h")) {
    stdout.write(USAGE);
    return 0;
  }
  const age = readAge(argv);
  if (age === undefined || age === 0) {
    stderr.write(`opspilot prune: give --older-than with an age such as 30d, 12h or 90m.\n\n${USAGE}`);
    return 2;
  }
  try {
    const env = options.env ?? loadEnv();
    const before = Date.now() - age;
    const report = await pruneDatabase(env, before);
    stdout.write(`Pruned what is older than ${new Date(before).toISOString()}: ${describe(report)}.\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof OpsPilotError)) throw error;
    stderr.write(`opspilot prune: ${error.message}\n`);
    return 2;
  }
}

/** `--older-than 30d` or `--older-than=30d`, and nothing else. */
function readAge(argv: string[]): number | undefined {
  const [first, second, ...rest] = argv;
  if (rest.length > 0 || first === undefined) return undefined;
  if (second === undefined)
    return first.startsWith("--older-than=") ? parseAge(first.slice("--older-than=".length)) : undefined;
  return first === "--older-than" ? parseAge(second) : undefined;
}

async function pruneDatabase(env: Env, before: number): Promise<PruneReport> {
  if (env.DATABASE_URL) {
    const backend = await openPostgres(env.DATABASE_URL);
    try {
      return await backend.storage.prune(before);
    } finally {
      await backend.close();
    }
  }
  const backend = openSqlite(env.OPSPILOT_DB);
  try {
    return await backend.storage.prune(before);
  } finally {
    backend.close();
  }
}

function describe(report: PruneReport): string {
  const labels: Array<[keyof PruneReport, string]> = [
    ["threads", "whole threads"],
    ["checkpoints", "checkpoints"],
    ["writes", "pending writes"],
    ["blobs", "channel values"],
    ["events", "events"],
    ["results", "raw results"],
    ["runs", "runs"],
    ["steps", "steps"],
    ["toolCalls", "tool calls"],
    ["decisions", "decisions"],
  ];
  return labels.map(([key, label]) => `${report[key]} ${label}`).join(", ");
}
