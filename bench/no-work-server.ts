/**
 * The floor of the load benchmark: a server with opspilot's run API shape that does no work.
 * The same framework as opspilot's server (hono on `@hono/node-server`), no storage, no graph:
 * a run streams opspilot's seven frames (`run_started` at once, then two tool calls with their
 * results, the answer and `run_finished`), waiting the model's latency where opspilot's model
 * would answer (`stream`: the streaming mock's timing, one tool call, the answer in 20 delta
 * frames, as the realistic workload's run). Driven by the same client at the same levels, it shows how much of a TTFE ratio
 * the client, the sockets and the machine account for. Speaks `load-server.ts`'s protocol:
 * prints `{"url":…}` once listening, answers `loop-delay` lines, stops when stdin closes.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { runApi, serveChild } from "./serve-child.js";

/** The child ends by itself after this long even if the parent never closes stdin. */
const HARD_LIMIT_MS = 150_000;

/** A latency in ms, or `stream`: the streaming mock's timing (300 ms to the first piece, then 20 pieces 25 ms apart). */
const modelArg = process.argv[2] ?? "0";
const streaming = modelArg === "stream";
const modelDelayMs = streaming ? 300 + 19 * 25 : Number(modelArg);

/** One model call's latency: a timer as the scripted model waits, or one event-loop turn at zero latency. */
const modelCall = () => (modelDelayMs > 0 ? sleep(modelDelayMs) : new Promise((resolve) => setImmediate(resolve)));

const app = runApi(async (_input, { send, delta }) => {
  for (let call = 0; call < (streaming ? 1 : 2); call += 1) {
    await modelCall();
    await send("tool_call", { callId: `call_${call}` });
    await send("tool_result", { callId: `call_${call}` });
  }
  if (streaming) {
    // The answer streams: its first piece after 300 ms, then one every 25 ms, each an unrecorded delta frame.
    await sleep(300);
    for (let piece = 0; piece < 20; piece += 1) {
      if (piece > 0) await sleep(25);
      await delta("x");
    }
  } else await modelCall();
  await send("assistant_message", { content: "done" });
  await send("run_finished", { stopReason: "final_answer" });
});

serveChild(app, HARD_LIMIT_MS);
