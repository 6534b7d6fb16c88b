import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { wireLoop } from "../src/app/wire-loop.js";
import { collectEvents } from "../src/service/events/recorded-events.js";
import { openPostgres, type PostgresBackend } from "../src/storage/postgres/open-postgres.js";
import { skipPostgres, startPostgresCluster } from "../test/fixtures/postgres-cluster.js";
import { startDelayProxy } from "./delay-proxy.js";
import { median, pairedRounds, round } from "./stats.js";
import {
  BENCH_USER as user,
  QUESTION,
  newStepClock,
  scriptedRunModel,
  toolPayload,
  workloadRegistry,
} from "./workload.js";

/** How the PostgreSQL step measure runs. */
export interface PostgresStepsOptions {
  /** Tool-calling steps per run. */
  steps: number;
  /** Timed rounds of each side (after one untimed). */
  rounds: number;
  /** What the proxy adds to each direction of every exchange with the database. */
  delayMs: number;
}

/** One checkpointer on one network. */
export interface PostgresStepsRow {
  saver: "postgres_saver" | "opspilot";
  network: "loopback" | "delayed";
  /** Median ms per step of whole runs through the runtime. */
  msPerStep: number;
  /** Statements sent to the database per step (each a round trip), counted over one run. */
  statementsPerStep: number;
}

/** opspilot's runtime on PostgreSQL: LangGraph's `PostgresSaver` against opspilot's, on loopback and behind a delay. */
export interface PostgresStepsResult {
  steps: number;
  delayMs: number;
  /** Median round trip of `SELECT 1` through the delaying proxy. */
  delayedRoundTripMs: number;
  rows: PostgresStepsRow[];
  /** Medians of the per-round ratios opspilot's checkpointer / `PostgresSaver`, ms per step. */
  ratios: { loopback: number; delayed: number };
}

/** Statements any PostgreSQL client sends while `counting`. */
let statements = 0;
let counting = false;

function countStatements(): () => void {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    if (counting) statements += 1;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return () => {
    pg.Client.prototype.query = query;
  };
}

/** One run of `steps` tool calls through the runtime on `backend`, with `saver` for checkpoints; returns ms per step. */
async function timedRun(backend: PostgresBackend, saver: PostgresSaver, steps: number): Promise<number> {
  const { runtime } = wireLoop({
    model: scriptedRunModel(steps, newStepClock()),
    registry: workloadRegistry(async (query) => toolPayload("small", query)),
    storage: backend.storage,
    checkpointer: saver,
    defaults: { maxSteps: steps + 5, tokenBudget: 1_000_000_000 },
  });
  const threadId = await runtime.createThread(user);
  const started = performance.now();
  const events = await collectEvents(await runtime.startRun({ threadId, message: QUESTION, user }));
  const ms = performance.now() - started;
  const finished = events.at(-1);
  const results = events.filter((event) => event.type === "tool_result").length;
  if (finished?.type !== "run_finished" || finished.stopReason !== "final_answer" || results !== steps)
    throw new Error(`the PostgreSQL run did not do the scripted work: ${results}/${steps} results`);
  return ms / steps;
}

/**
 * opspilot's runtime on a private PostgreSQL server (the test fixture's: fsync off, loopback),
 * with LangGraph's `PostgresSaver` and with opspilot's `BatchedPostgresSaver`, each reached
 * directly and through a proxy that delays each direction by `delayMs`. Undefined when no
 * PostgreSQL server binaries are installed (or `OPSPILOT_SKIP_POSTGRES=1`).
 */
export async function runPostgresSteps(
  options: PostgresStepsOptions,
  onProgress: (line: string) => void = () => {},
): Promise<PostgresStepsResult | undefined> {
  if (skipPostgres) return undefined;
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>>;
  try {
    cluster = await startPostgresCluster();
  } catch (error) {
    onProgress(`postgres: skipped (${(error as Error).message.split("\n")[0]})`);
    return undefined;
  }
  const port = Number(new URL(cluster.url).port);
  const proxy = await startDelayProxy(port, options.delayMs);
  const delayedUrl = cluster.url.replace(`:${port}/`, `:${proxy.port}/`);
  const restore = countStatements();
  const backends: PostgresBackend[] = [];
  try {
    const direct = await openPostgres(cluster.url);
    backends.push(direct);
    const delayed = await openPostgres(delayedUrl);
    backends.push(delayed);
    const sides = (backend: PostgresBackend) => [
      () => timedRun(backend, new PostgresSaver(backend.pool), options.steps),
      () => timedRun(backend, backend.checkpointer, options.steps),
    ];
    const [directStock, directOurs] = await pairedRounds(options.rounds, sides(direct));
    onProgress(`postgres, loopback: ${options.rounds} rounds`);
    const [delayedStock, delayedOurs] = await pairedRounds(options.rounds, sides(delayed));
    onProgress(`postgres, ${options.delayMs} ms each way: ${options.rounds} rounds`);
    const perStep = async (run: () => Promise<number>) => {
      statements = 0;
      counting = true;
      await run();
      counting = false;
      return round(statements / options.steps, 1);
    };
    const [stockSide, oursSide] = sides(direct);
    const stockStatements = await perStep(stockSide!);
    const oursStatements = await perStep(oursSide!);
    const pings: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const started = performance.now();
      await delayed.pool.query("SELECT 1");
      pings.push(performance.now() - started);
    }
    const row = (saver: PostgresStepsRow["saver"], network: PostgresStepsRow["network"], ms: number) => ({
      saver,
      network,
      msPerStep: round(ms, 2),
      statementsPerStep: saver === "opspilot" ? oursStatements : stockStatements,
    });
    return {
      steps: options.steps,
      delayMs: options.delayMs,
      delayedRoundTripMs: round(median(pings), 2),
      rows: [
        row("postgres_saver", "loopback", directStock!.ms),
        row("opspilot", "loopback", directOurs!.ms),
        row("postgres_saver", "delayed", delayedStock!.ms),
        row("opspilot", "delayed", delayedOurs!.ms),
      ],
      ratios: { loopback: round(directOurs!.ratio, 3), delayed: round(delayedOurs!.ratio, 3) },
    };
  } finally {
    restore();
    for (const backend of backends) await backend.close();
    await proxy.close();
    await cluster.stop();
  }
}
