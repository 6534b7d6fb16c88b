import { z } from "zod";
import { ScriptedChatModel, answerMessage, callsMessage, type ScriptStep } from "../test/fixtures/scripted-model.js";
import { ToolRegistry } from "../src/tools/registry.js";
import { defineTool } from "../src/tools/types.js";

/** Name of the one read-only tool every peer calls. */
export const TOOL_NAME = "search_records";
/** Prompt of that tool (the same text for every peer). */
export const TOOL_DESCRIPTION = "Search the operations records for a query and return the matching rows.";
/** Arguments of that tool (the same zod schema for every peer). */
export const toolSchema = z.object({ query: z.string().describe("What to look up") });

/** The question of every scripted run, and the answer its script ends with. */
export const QUESTION = "Check the payment records.";
export const ANSWER = "All records checked.";
/** The user every benchmark run is started as. */
export const BENCH_USER = { id: "bench", role: "operator" };

/** A registry holding only that tool, read-only and low risk, whose calls `run` answers. */
export function workloadRegistry(run: (query: string) => Promise<unknown>, timeoutMs = 5_000): ToolRegistry {
  return new ToolRegistry([
    defineTool({
      name: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      schema: toolSchema,
      readOnly: true,
      risk: "low",
      timeoutMs,
      run: ({ query }) => run(query),
    }),
  ]);
}

/** Size of the tool outputs of one benchmark case. */
export type PayloadSize = "small" | "20kb";

/** What the tool returns for `query`: about 100 bytes, or about 20 KB of log-like rows. */
export function toolPayload(size: PayloadSize, query: string): unknown {
  if (size === "small") return { query, total: 1, found: [`record:${query}`] };
  const rows = Array.from({ length: 100 }, (_, i) => ({
    ts: `2025-01-01T00:${String(i % 60).padStart(2, "0")}:00Z`,
    level: i % 7 === 0 ? "ERROR" : "INFO",
    service: "payment-service",
    message: `[${query}] request ${i} handled by pool worker ${i % 8}; latency ${(i * 37) % 900} ms; upstream gateway responded`,
  }));
  return { query, total: rows.length, rows };
}

/** Stamps taken at every model call; `stamps[k+1] - stamps[k]` is the loop time of step k+1. */
export interface StepClock {
  /** Wall clock (ms). */
  stamps: number[];
  /** Process CPU time, user + system (ms). */
  cpuStamps: number[];
}

/** A clock with no stamps yet. */
export function newStepClock(): StepClock {
  return { stamps: [], cpuStamps: [] };
}

function stamp(clock: StepClock): void {
  const cpu = process.cpuUsage();
  clock.cpuStamps.push((cpu.user + cpu.system) / 1000);
  clock.stamps.push(performance.now());
}

/**
 * A zero-latency scripted model for one run: `steps` turns that each call the tool once with
 * distinct args (so opspilot's identical-call guard never fires), then a final answer.
 */
export function scriptedRunModel(steps: number, clock: StepClock): ScriptedChatModel {
  const script: ScriptStep[] = Array.from({ length: steps }, (_, i) =>
    callsMessage([{ name: TOOL_NAME, args: { query: `q${i}` } }]),
  );
  script.push(answerMessage(ANSWER));
  return new ScriptedChatModel({ script, assertCall: () => stamp(clock) });
}

/** Per-step loop times of a run from its model-call stamps (step k = time between model calls k and k+1). */
export function stepTimes(stamps: number[]): number[] {
  return stamps.slice(1).map((value, i) => value - stamps[i]!);
}
