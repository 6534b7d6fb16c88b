import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../../src/app/assemble.js";
import { hostedGraph } from "../../../src/app/hosted-graph.js";
import { loadEnv } from "../../../src/config/env.js";
import type { RunEvent } from "../../../src/contracts/events.js";
import { DemoChatModel } from "../../../src/demo/model/demo-model.js";
import { GraphRunEvents } from "../../../src/service/events/graph-run-events.js";
import { collectEvents } from "../../../src/service/events/recorded-events.js";

const SEED = "看看支付服务最近报错，顺便对照一下文档里的处理建议";
const USER = { id: "olga", role: "operator" };
const directory = mkdtempSync(join(tmpdir(), "opspilot-graph-events-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

type Pause = Extract<RunEvent, { type: "loop_interrupt" }>;
const approveAll = (pause: Pause) => ({
  decisions: pause.calls.map((call) => ({
    callId: call.callId,
    action: "approve",
    argsHash: call.argsHash,
    ...(call.missing?.length ? { params: { environment: "prod" } } : {}),
  })),
});
/** What a run's events say, without the ids and figures that differ between two runs. */
const shape = (events: RunEvent[]) =>
  events.map((event) => {
    switch (event.type) {
      case "run_started":
        return `run_started resumed=${event.resumed === true}`;
      case "tool_call":
        return `tool_call ${event.tool} model=${event.model !== undefined}`;
      case "tool_result":
        return `tool_result ${event.tool} ok=${event.ok} decision=${event.decision?.action ?? "-"}`;
      case "assistant_message":
        return `assistant_message model=${event.model !== undefined}`;
      case "loop_interrupt":
        return `loop_interrupt ${event.interruptType} ${event.calls.map((call) => call.tool).join(",")}`;
      case "run_finished":
        return `run_finished ${event.stopReason} steps=${event.steps} paused=${event.paused === true}`;
    }
  });

describe("the run events of a graph the LangGraph server drives, from LangGraph's callbacks", () => {
  it("tells the seed question's pause and resume as the events the runtime records for it", async () => {
    const hosted = await hostedGraph(
      loadEnv({ OPSPILOT_DB: join(directory, "hosted.sqlite"), OPSPILOT_LOG_LEVEL: "silent" }),
      new DemoChatModel(),
      {},
    );
    const told: RunEvent[] = [];
    // As the server does: its own checkpointer on the graph, the thread and the run in the configurable.
    const graph = hosted.graph.withConfig({
      callbacks: [
        new GraphRunEvents(
          (event) => told.push(event),
          (_, a) => a,
        ),
      ],
    });
    graph.checkpointer = new MemorySaver();
    const drive = async (input: unknown, runId: string) => {
      const stream = await graph.stream(input as never, {
        configurable: { thread_id: "t-hosted", run_id: runId },
        streamMode: "values",
      });
      for await (const _ of stream) void _;
    };
    await drive({ messages: [new HumanMessage(SEED)] }, "run-1");
    const pause = told.find((event): event is Pause => event.type === "loop_interrupt")!;
    await drive(new Command({ resume: approveAll(pause) }), "run-2");
    await hosted.close();

    const app = createApp({
      env: loadEnv({ OPSPILOT_LOG_LEVEL: "silent" }),
      dbPath: join(directory, "server.sqlite"),
      model: new DemoChatModel(),
      tracingEnv: {},
    });
    const threadId = await app.runtime.createThread(USER);
    const first = await collectEvents(await app.runtime.startRun({ threadId, message: SEED, user: USER }));
    const recordedPause = first.find((event): event is Pause => event.type === "loop_interrupt")!;
    const second = await collectEvents(
      await app.runtime.resumeRun({ threadId, user: USER, resume: approveAll(recordedPause) }),
    );
    await app.close();

    expect(shape(told)).toEqual(shape([...first, ...second]));
    expect(shape(told)).toContain("loop_interrupt params_required search_logs");
    // Each event belongs to the thread and to the server's run it happened in.
    expect(new Set(told.map((event) => event.threadId))).toEqual(new Set(["t-hosted"]));
    const runOf = (event: RunEvent) => event.runId;
    const split = told.findIndex((event) => event.type === "run_finished") + 1;
    expect(new Set(told.slice(0, split).map(runOf))).toEqual(new Set(["run-1"]));
    expect(new Set(told.slice(split).map(runOf))).toEqual(new Set(["run-2"]));
    // The figures come from the run's state, as the runtime's do.
    const finished = told.filter((event) => event.type === "run_finished");
    expect(finished.at(-1)).toMatchObject({ stopReason: "final_answer", paused: true });
    expect((finished.at(-1) as { tokens?: number }).tokens).toBeGreaterThan(0);
  });

  it("tells a run that failed as ending in error, and follows no run outside a thread", async () => {
    const told: RunEvent[] = [];
    const events = new GraphRunEvents(
      (event) => told.push(event),
      (_, a) => a,
    );
    // In the order CallbackManager passes them: chain, inputs, run id, parent run id, tags, metadata.
    events.handleChainStart({} as never, {}, "cb-1", undefined, [], { thread_id: "t1", run_id: "r1" });
    events.handleChainStart({} as never, { messages: [] }, "node-1", "cb-1", [], {});
    events.handleChainError(new Error("cancelled"), "cb-1");
    events.handleChainStart({} as never, {}, "cb-2", undefined, [], {});
    events.handleChainEnd({}, "cb-2");
    expect(told.map((event) => [event.type, event.runId])).toEqual([
      ["run_started", "r1"],
      ["run_finished", "r1"],
    ]);
    expect(told[1]).toMatchObject({ stopReason: "error", threadId: "t1" });
  });
});
