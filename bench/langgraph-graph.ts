/**
 * The graph the load benchmark's LangGraph API server hosts (its `langgraph.json` points here):
 * opspilot's graph exactly as `src/app/studio.ts` hosts it for Studio, with the scripted model of
 * `load-server.ts` in place of the environment's, answering after `OPSPILOT_BENCH_MODEL_DELAY_MS`;
 * with `OPSPILOT_MODEL` set (the realistic workload), the environment's own model.
 */
import { hostedGraph, type HostedGraph } from "../src/app/hosted-graph.js";
import { studioGraphFactory } from "../src/app/studio.js";
import { loadEnv } from "../src/config/env.js";
import { loadModel } from "./load-model.js";

let shared: Promise<HostedGraph> | undefined;

/** The graph factory the LangGraph server calls per run. */
export async function graph(...args: Parameters<ReturnType<typeof studioGraphFactory>>) {
  shared ??= process.env.OPSPILOT_MODEL
    ? hostedGraph(loadEnv())
    : hostedGraph(loadEnv(), loadModel(Number(process.env.OPSPILOT_BENCH_MODEL_DELAY_MS ?? "0")));
  const hosted = await shared;
  return studioGraphFactory(() => hosted)(...args);
}
