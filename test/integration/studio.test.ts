import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOOP_EDGES, LOOP_NODES } from "../fixtures/loop-shape.js";
import { PauseValueSchema } from "../../src/contracts/pause/pause.js";
import { startDevServer, type DevServer } from "../fixtures/dev-server.js";

const SEED = "看看支付服务最近报错，顺便对照一下文档里的处理建议";
const GRAPH_ID = "opspilot";

type WireMessage = {
  id?: string;
  type: string;
  content: unknown;
  tool_calls?: Array<{ id: string }>;
  tool_call_id?: string;
};
type Values = { messages: WireMessage[]; stop: { reason: string } | null; __interrupt__?: Array<{ value: unknown }> };
/** Every tool_call id has exactly one tool message, and no tool message is orphaned. */
function pairingHolds(messages: WireMessage[]): boolean {
  const callIds = messages.flatMap((message) =>
    message.type === "ai" ? (message.tool_calls ?? []).map((call) => call.id) : [],
  );
  const answered = messages.filter((message) => message.type === "tool").map((message) => message.tool_call_id);
  return new Set(callIds).size === callIds.length && [...callIds].sort().join() === [...answered].sort().join();
}

const textOf = (message: WireMessage | undefined) =>
  typeof message?.content === "string" ? message.content : JSON.stringify(message?.content);

describe("the LangGraph dev server (npm run dev) serving the opspilot graph", () => {
  let server: DevServer;
  let apiUrl: string;
  let client: Client;
  const outbound = () => server.outbound();

  beforeAll(async () => {
    const started = performance.now();
    server = await startDevServer();
    apiUrl = server.apiUrl;
    console.info(`[studio.test] LangGraph dev server ready in ${Math.round(performance.now() - started)} ms`);
    client = new Client({ apiUrl });
  }, 120_000);

  afterAll(async () => {
    if (!server) return;
    const denied = outbound().filter((entry) => entry.kind === "denied");
    expect(await server.stop()).toBe(true);
    expect(denied).toEqual([]);
  }, 30_000);

  it("prints where to point Studio and the API", () => {
    expect(server.output()).toContain(`Studio: https://smith.langchain.com/studio/?baseUrl=${apiUrl}`);
    expect(server.output()).toContain(`API:    ${apiUrl}`);
  });

  it("draws the six nodes of the loop and their edges for Studio", async () => {
    const response = await fetch(`${apiUrl}/assistants/${GRAPH_ID}/graph`);
    expect(response.status).toBe(200);
    const drawn = (await response.json()) as {
      nodes: Array<{ id: string }>;
      edges: Array<{ source: string; target: string }>;
    };
    expect(drawn.nodes.map((node) => node.id).sort()).toEqual(["__start__", "__end__", ...LOOP_NODES].sort());
    expect(drawn.edges.map((edge) => `${edge.source}->${edge.target}`).sort()).toEqual([...LOOP_EDGES].sort());
  });

  it("answers Studio's schema request with the input messages and every run option", async () => {
    const response = await fetch(`${apiUrl}/assistants/${GRAPH_ID}/schemas`);
    expect(response.status).toBe(200);
    const schemas = (await response.json()) as Record<
      string,
      { properties: Record<string, { default?: unknown; description?: string }> }
    >;
    expect(Object.keys(schemas.input_schema.properties)).toEqual(["messages"]);
    expect(schemas.input_schema.properties.messages).toMatchObject({ type: "array", langgraph_type: "messages" });
    for (const key of ["context_schema", "config_schema"]) {
      const options = schemas[key].properties;
      expect(Object.keys(options)).toEqual(
        expect.arrayContaining(["userId", "role", "maxSteps", "maxWallTimeMs", "stepTools", "tokenBudget"]),
      );
      expect(options.maxSteps).toMatchObject({ default: 8, description: expect.stringContaining("max_steps") });
      expect(options.role).toMatchObject({ default: "operator", description: expect.stringContaining("viewer") });
      expect(options.stepTools.description).toContain("Serial step mode");
    }
  });

  it("runs the seed question to the environment pause, refuses a bad resume, and finishes after a good one", async () => {
    const { thread_id: threadId } = await client.threads.create();
    const first: Values[] = [];
    for await (const part of client.runs.stream(threadId, GRAPH_ID, {
      input: { messages: [{ role: "user", content: SEED }] },
      streamMode: "values",
    })) {
      if (part.event === "values") first.push(part.data as Values);
    }
    expect(first[0].messages.map((message) => message.type)).toEqual(["human"]);

    const paused = await client.threads.get(threadId);
    expect(paused.status).toBe("interrupted");
    const pauseOf = async () =>
      (await client.threads.getState(threadId)).tasks.flatMap((task) => task.interrupts.map((item) => item.value));
    const [value] = await pauseOf();
    const pause = PauseValueSchema.strict().parse(value);
    expect(pause).toMatchObject({
      interruptType: "params_required",
      calls: [{ tool: "search_logs", missing: [{ name: "environment" }] }],
    });
    expect(pause.calls).toHaveLength(1);
    expect([...pause.calls[0].missing![0].enum!].sort()).toEqual(["prod", "staging"]);
    expect(
      Object.values(paused.interrupts)
        .flat()
        .map((item) => item.value),
    ).toEqual([pause]);
    expect(first.at(-1)!.__interrupt__!.map((item) => item.value)).toEqual([pause]);

    for await (const _ of client.runs.stream(threadId, GRAPH_ID, {
      command: { resume: { decisions: [{ callId: "nope", action: "approve" }] } },
    }))
      void _;
    const [refused] = await pauseOf();
    expect(refused).toEqual({ ...pause, error: expect.stringContaining("Unknown call id nope") });

    const resume = {
      decisions: [{ callId: pause.calls[0].callId, action: "approve", params: { environment: "prod" } }],
    };
    const second: Values[] = [];
    for await (const part of client.runs.stream(threadId, GRAPH_ID, { command: { resume }, streamMode: "values" })) {
      if (part.event === "values") second.push(part.data as Values);
    }
    const final = second.at(-1)!;
    expect(final.stop?.reason).toBe("final_answer");
    expect(final.messages.at(-1)!.type).toBe("ai");
    expect(textOf(final.messages.at(-1))).toMatch(/PAY-5031[\s\S]*RB-003|RB-003[\s\S]*PAY-5031/);
    expect(pairingHolds(final.messages)).toBe(true);
    expect((await client.threads.get(threadId)).status).toBe("idle");

    const elsewhere = await new Client({ apiUrl }).threads.getState<Values>(threadId);
    expect(elsewhere.values.messages.map((message) => [message.id, message.type, textOf(message)])).toEqual(
      final.messages.map((message) => [message.id, message.type, textOf(message)]),
    );
    expect(elsewhere.next).toEqual([]);
  });

  it.each([
    ["context", { context: { maxSteps: 1 } }],
    ["config.configurable", { config: { configurable: { maxSteps: 1 } } }],
  ])("reads run options from %s", async (_where, options) => {
    const { thread_id: threadId } = await client.threads.create();
    await client.runs.wait(threadId, GRAPH_ID, { input: { messages: [{ role: "user", content: SEED }] }, ...options });
    const state = await client.threads.getState<Values>(threadId);
    expect(state.values.stop?.reason).toBe("max_steps");
    expect(pairingHolds(state.values.messages)).toBe(true);
  });

  it("fails a run whose context does not fit the run options with one readable line, not a schema dump", async () => {
    const { thread_id: threadId } = await client.threads.create();
    const answer = await client.runs
      .wait(threadId, GRAPH_ID, {
        input: { messages: [{ role: "user", content: SEED }] },
        context: { maxSteps: 1000 },
        raiseError: false,
      })
      .catch((error: unknown) => error);
    const text = JSON.stringify(answer);
    expect(text).toContain("InvalidRunOptionsError");
    expect(text).toContain(
      "Invalid run options: maxSteps: Too big: expected number to be <=100. Fix the run's context (or configurable) and start it again.",
    );
    expect(text).not.toContain('\\"code\\"');
  });

  it("keeps every connection on this machine (analytics off)", () => {
    const entries = outbound();
    expect(entries.filter((entry) => entry.kind === "denied")).toEqual([]);
    expect(entries.some((entry) => entry.kind === "loaded" && entry.argv?.includes("entrypoint"))).toBe(true);
  });
});
