import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { createApp } from "../src/app/assemble.js";
import { wireLoop } from "../src/app/wire-loop.js";
import { loadEnv } from "../src/config/env.js";
import { recursionLimitFor } from "../src/graph/config.js";
import type { StreamEvent } from "../src/contracts/events.js";
import { DemoChatModel } from "../src/demo/model/demo-model.js";
import { ScriptedChatModel, answerMessage, callsMessage, type ScriptStep } from "../test/fixtures/scripted-model.js";
import { collectEvents } from "../src/service/events/recorded-events.js";
import { openSqlite } from "../src/storage/sqlite/open-sqlite.js";
import {
  CATEGORIES,
  checkpointerParts,
  checkpointerValueBytes,
  diskBytesByCategory,
  type CheckpointerParts,
  type TableCategory,
} from "./sqlite-bytes.js";
import { mean, round } from "./stats.js";
import { ANSWER, BENCH_USER, QUESTION, TOOL_NAME, toolPayload, workloadRegistry } from "./workload.js";

/** How the storage figures are measured. */
export interface StorageOptions {
  /** Finished seed-question threads written; the bytes are divided by this. */
  threads: number;
  /** Steps of the long thread whose checkpoint bytes per step are tracked. */
  longSteps: number;
}

/** Bytes per category (tables and their indexes, after VACUUM) of one finished seed thread. */
export type ThreadBytes = Record<Exclude<TableCategory, "other">, number>;

/** Bytes in the database per finished seed-question thread, and checkpoint bytes per step early and late in a long thread. */
export interface StorageResult {
  threads: number;
  /** Per category, divided by the threads, every checkpoint kept (`OPSPILOT_CHECKPOINTS=history`, the default). */
  bytesPerThread: ThreadBytes;
  /** Sum of the categories. */
  totalBytesPerThread: number;
  /**
   * The checkpointer's stored values per thread with its history, by what they hold. LangGraph's
   * checkpoints plus the messages' writes are the floor of a seed thread on the stock saver's
   * tables: what the card's supersteps and the conversation itself store, before any index,
   * key, page, event or record.
   */
  partsPerThread: CheckpointerParts;
  /** The same with `OPSPILOT_CHECKPOINTS=latest` (each thread compacted when its runs end or pause). */
  latestBytesPerThread: ThreadBytes;
  latestTotalBytesPerThread: number;
  longSteps: number;
  /** Mean checkpointer bytes added per step (stored values, small outputs) over steps 1–5 and the last five. */
  first5BytesPerStep: number;
  last5BytesPerStep: number;
  /** last5 / first5: 1.00 is flat. */
  growth: number;
}

const SEED = "看看支付服务最近报错，顺便对照一下文档里的处理建议";
const user = BENCH_USER;

function pauseOf(events: StreamEvent[]) {
  const pause = events.find((event) => event.type === "loop_interrupt");
  if (!pause || pause.type !== "loop_interrupt") throw new Error("the seed question did not pause for its environment");
  return pause;
}

/** The seed question as a user runs it: 2 steps, the pause for the environment, `prod`, the answer. */
async function seedThread(app: ReturnType<typeof createApp>): Promise<void> {
  const threadId = await app.runtime.createThread(user);
  const pause = pauseOf(await collectEvents(await app.runtime.startRun({ threadId, message: SEED, user })));
  const decisions = pause.calls.map((call) => ({
    callId: call.callId,
    action: "approve" as const,
    argsHash: call.argsHash,
    params: { environment: "prod" },
  }));
  const finished = (await collectEvents(await app.runtime.resumeRun({ threadId, resume: { decisions }, user }))).at(-1);
  if (finished?.type !== "run_finished" || finished.stopReason !== "final_answer" || finished.steps !== 3)
    throw new Error(`the seed thread did not finish with its answer in 3 steps: ${JSON.stringify(finished)}`);
}

async function perThread(
  directory: string,
  threads: number,
  checkpoints: "history" | "latest",
): Promise<{ bytes: ThreadBytes; parts: CheckpointerParts }> {
  const path = join(directory, `seed-${checkpoints}.sqlite`);
  const app = createApp({
    env: loadEnv({ OPSPILOT_CHECKPOINTS: checkpoints }),
    dbPath: path,
    model: new DemoChatModel(),
  });
  try {
    const db = openSqlite(path);
    const before = diskBytesByCategory(db.db);
    const partsBefore = checkpointerParts(db.db);
    for (let i = 0; i < threads; i += 1) await seedThread(app);
    const after = diskBytesByCategory(db.db);
    const partsAfter = checkpointerParts(db.db);
    db.close();
    const bytes = {} as ThreadBytes;
    for (const category of CATEGORIES)
      bytes[category as keyof ThreadBytes] = Math.round((after[category] - before[category]) / threads);
    const parts = {} as CheckpointerParts;
    for (const part of Object.keys(partsAfter) as Array<keyof CheckpointerParts>)
      parts[part] = Math.round((partsAfter[part] - partsBefore[part]) / threads);
    return { bytes, parts };
  } finally {
    await app.close();
  }
}

/** Checkpointer bytes added by each step of one long thread (small outputs), from stamps at each model call. */
async function bytesPerStep(directory: string, steps: number): Promise<number[]> {
  const backend = openSqlite(join(directory, "long.sqlite"));
  try {
    const stamps: number[] = [];
    const script: ScriptStep[] = Array.from({ length: steps }, (_, i) =>
      callsMessage([{ name: TOOL_NAME, args: { query: `q${i}` } }]),
    );
    script.push(answerMessage(ANSWER));
    const measured = new ScriptedChatModel({
      script,
      assertCall: () => void stamps.push(checkpointerValueBytes(backend.db)),
    });
    const registry = workloadRegistry(async (query) => toolPayload("small", query));
    const maxSteps = steps + 5;
    const { graph } = wireLoop({
      model: measured,
      registry,
      storage: backend.storage,
      checkpointer: backend.checkpointer,
      defaults: { maxSteps, tokenBudget: 1_000_000_000 },
    });
    await graph.invoke(
      { messages: [new HumanMessage(QUESTION)] },
      {
        configurable: { thread_id: randomUUID(), run_id: randomUUID(), userId: user.id, role: user.role, maxSteps },
        recursionLimit: recursionLimitFor({ maxSteps }),
        // As the runtime saves: each step's checkpoint is on disk when the next model call is stamped.
        durability: "sync",
      },
    );
    return stamps.slice(1).map((value, i) => value - stamps[i]!);
  } finally {
    backend.close();
  }
}

const total = (bytes: ThreadBytes) => Object.values(bytes).reduce((sum, value) => sum + value, 0);

/** Measures the database bytes of finished seed threads and the checkpoint bytes per step of a long thread. */
export async function runStorage(
  options: StorageOptions,
  onProgress: (line: string) => void = () => {},
): Promise<StorageResult> {
  const directory = mkdtempSync(join(tmpdir(), "opspilot-storage-"));
  try {
    const { bytes: bytesPerThread, parts: partsPerThread } = await perThread(directory, options.threads, "history");
    const { bytes: latestBytesPerThread } = await perThread(directory, options.threads, "latest");
    onProgress(`storage: ${options.threads} seed threads, with history and latest only`);
    const perStep = await bytesPerStep(directory, options.longSteps);
    onProgress(`storage: a ${options.longSteps}-step thread`);
    const first5 = mean(perStep.slice(0, 5));
    const last5 = mean(perStep.slice(-5));
    return {
      threads: options.threads,
      bytesPerThread,
      totalBytesPerThread: total(bytesPerThread),
      partsPerThread,
      latestBytesPerThread,
      latestTotalBytesPerThread: total(latestBytesPerThread),
      longSteps: options.longSteps,
      first5BytesPerStep: Math.round(first5),
      last5BytesPerStep: Math.round(last5),
      growth: round(last5 / first5, 2),
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
