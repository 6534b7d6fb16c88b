import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PauseValueSchema, type PauseValue } from "../../src/contracts/pause/pause.js";
import { openSqlite } from "../../src/storage/sqlite/open-sqlite.js";
import { OpsStore } from "../../src/demo/index.js";
import { startDevServer, waitFor, type DevServer } from "../fixtures/dev-server.js";
import { attrs, startCollector } from "../fixtures/otlp-collector.js";

const GRAPH_ID = "opspilot";
/** Alice and bob operate; root holds an operator and a viewer token; vic only views. */
const TOKENS = {
  alice: "alice-operator-token",
  bob: "bob-operator-token",
  rootOperator: "root-operator-token",
  rootViewer: "root-viewer-token",
  vic: "vic-viewer-token",
  quinn: "quinn-operator-token",
  tara: "tara-operator-token",
};
const API_TOKENS = [
  `${TOKENS.alice}=alice:operator`,
  `${TOKENS.bob}=bob:operator`,
  `${TOKENS.rootOperator}=root:operator`,
  `${TOKENS.rootViewer}=root:viewer`,
  `${TOKENS.vic}=vic:viewer`,
  `${TOKENS.quinn}=quinn:operator`,
  `${TOKENS.tara}=tara:operator`,
].join(",");
const SEED = "看看支付服务最近报错，顺便对照一下文档里的处理建议";
/** Every caller above starts at most this many runs, but quinn. */
const RUNS_PER_DAY = 2;

type WireMessage = { type: string; content: unknown; name?: string };
type Values = { messages: WireMessage[]; stop: { reason: string } | null };

describe("the LangGraph dev server with OPSPILOT_API_TOKENS (issue 25)", () => {
  let server: DevServer;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  const as = (token: string) =>
    new Client({ apiUrl: server.apiUrl, defaultHeaders: { Authorization: `Bearer ${token}` } });
  const post = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.apiUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: "{}",
    });
  const estate = () => new OpsStore(new BetterSqlite3(join(server.directory, "opspilot.sqlite"), { readonly: true }));
  const pauseOf = async (client: Client, threadId: string): Promise<PauseValue | undefined> => {
    const values = (await client.threads.getState(threadId)).tasks.flatMap((task) =>
      task.interrupts.map((i) => i.value),
    );
    return values.length ? PauseValueSchema.parse(values.at(-1)) : undefined;
  };
  const ask = (client: Client, threadId: string, content: string, context?: object) =>
    client.runs.wait(threadId, GRAPH_ID, {
      input: { messages: [{ role: "user", content }] },
      ...(context ? { context } : {}),
    }) as Promise<Values>;
  const answer = (client: Client, threadId: string, resume: unknown) =>
    client.runs.wait(threadId, GRAPH_ID, { command: { resume } }) as Promise<Values>;

  beforeAll(async () => {
    collector = await startCollector("ok");
    server = await startDevServer({
      OPSPILOT_API_TOKENS: API_TOKENS,
      OPSPILOT_QUOTA_RUNS_PER_DAY: String(RUNS_PER_DAY),
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    });
  }, 120_000);

  afterAll(async () => {
    if (server) expect(await server.stop()).toBe(true);
    await collector?.close();
  }, 30_000);

  it("refuses callers without a valid token, and Studio's header without one", async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { Authorization: "Bearer not-a-token" },
      { "x-auth-scheme": "langsmith" },
    ];
    for (const headers of attempts) {
      const response = await post("/threads/search", headers);
      expect(response.status).toBe(401);
    }
    expect((await post("/threads/search", { Authorization: `Bearer ${TOKENS.alice}` })).status).toBe(200);
  });

  it("answers Studio's graph and schema requests for an authenticated caller", async () => {
    for (const path of [`/assistants/${GRAPH_ID}/graph`, `/assistants/${GRAPH_ID}/schemas`]) {
      expect((await fetch(`${server.apiUrl}${path}`)).status).toBe(401);
      const response = await fetch(`${server.apiUrl}${path}`, { headers: { Authorization: `Bearer ${TOKENS.vic}` } });
      expect(response.status).toBe(200);
    }
  });

  it("keeps a thread its owner's: another user cannot get, search, run or resume it", async () => {
    const alice = as(TOKENS.alice);
    const bob = as(TOKENS.bob);
    const { thread_id: threadId, metadata } = await alice.threads.create({ metadata: { owner: "bob" } });
    expect(metadata).toMatchObject({ owner: "alice" });
    await ask(alice, threadId, "restart payment-service in prod");
    expect((await pauseOf(alice, threadId))?.interruptType).toBe("confirm_risky");

    await expect(bob.threads.get(threadId)).rejects.toMatchObject({ status: 404 });
    await expect(bob.threads.getState(threadId)).rejects.toMatchObject({ status: 404 });
    expect((await bob.threads.search({ limit: 100 })).map((thread) => thread.thread_id)).not.toContain(threadId);
    expect((await alice.threads.search({ limit: 100 })).map((thread) => thread.thread_id)).toContain(threadId);
    await expect(ask(bob, threadId, "what is going on?")).rejects.toMatchObject({ status: 404 });
    await expect(answer(bob, threadId, { decisions: [{ type: "approve" }] })).rejects.toMatchObject({ status: 404 });
    await expect(alice.threads.update(threadId, { metadata: { owner: "bob" } })).rejects.toMatchObject({ status: 403 });
    // A copy is read first: bob cannot copy alice's thread; alice's copy is hers, with her pause.
    await expect(bob.threads.copy(threadId)).rejects.toMatchObject({ status: 409 });
    const copy = await alice.threads.copy(threadId);
    expect(copy.metadata).toMatchObject({ owner: "alice" });
    await expect(bob.threads.getState(copy.thread_id)).rejects.toMatchObject({ status: 404 });
    expect((await pauseOf(alice, copy.thread_id))?.interruptType).toBe("confirm_risky");
    expect(await estate().countActions({ action: "restart" })).toBe(0);
  });

  it("acts as the token's user: a viewer claiming admin in its context cannot run an admin-only tool", async () => {
    const vic = as(TOKENS.vic);
    const { thread_id: threadId } = await vic.threads.create();
    const final = await ask(vic, threadId, "roll back payment-service in prod", { role: "admin", userId: "mallory" });
    const rollbacks = final.messages.filter((message) => message.type === "tool" && message.name === "rollback_deploy");
    expect(rollbacks.length).toBeGreaterThan(0);
    for (const message of rollbacks) expect(String(message.content)).toContain("permission_denied");
    expect(await estate().countActions({ action: "rollback" })).toBe(0);
    const storage = openSqlite(join(server.directory, "opspilot.sqlite"));
    const { runs } = await storage.storage.threadRecords(threadId);
    storage.close();
    expect(runs.map((run) => run.user_id)).toEqual(["vic"]);
  });

  it("never applies a refused answer: root's viewer approve, then root's operator reject, runs nothing", async () => {
    const operator = as(TOKENS.rootOperator);
    const viewer = as(TOKENS.rootViewer);
    const { thread_id: threadId } = await operator.threads.create();
    await ask(operator, threadId, "restart payment-service in prod");
    const pause = (await pauseOf(operator, threadId))!;
    const [call] = pause.calls;
    await answer(viewer, threadId, {
      decisions: [{ callId: call!.callId, action: "approve", argsHash: call!.argsHash }],
    });
    expect((await pauseOf(operator, threadId))?.error).toContain("Your role (viewer) is not allowed");
    const final = await answer(operator, threadId, { decisions: [{ type: "reject", message: "not now" }] });
    expect(final.stop?.reason).toBe("final_answer");
    expect(String(final.messages.find((message) => message.name === "restart_service")?.content)).toContain(
      "rejected_by_user",
    );
    expect(await estate().countActions({ action: "restart" })).toBe(0);
    const storage = openSqlite(join(server.directory, "opspilot.sqlite"));
    const { decisions } = await storage.storage.threadRecords(threadId);
    storage.close();
    expect(decisions.map((row) => [row.action, row.user_id, row.role])).toEqual([["reject", "root", "operator"]]);
  });

  it("counts new runs against the runs-per-day quota and lets a resume through", async () => {
    const quinn = as(TOKENS.quinn);
    const { thread_id: first } = await quinn.threads.create();
    await ask(quinn, first, "restart payment-service in prod");
    const [call] = (await pauseOf(quinn, first))!.calls;
    const { thread_id: second } = await quinn.threads.create();
    await ask(quinn, second, "how is order-service doing in prod?");
    // Both of the day's runs are spent: answering the pause continues a run, so it goes through.
    const resumed = await answer(quinn, first, {
      decisions: [{ callId: call!.callId, action: "reject", argsHash: call!.argsHash }],
    });
    expect(resumed.stop?.reason).toBe("final_answer");
    // A third new run is refused, claiming a resume or not, and records nothing.
    const { thread_id: third } = await quinn.threads.create();
    const refused = quinn.runs.wait(third, GRAPH_ID, {
      input: { messages: [{ role: "user", content: "and payment-service?" }] },
      config: { configurable: { opspilot_run_entry: "continue" } },
    });
    expect(JSON.stringify(await refused.catch((error: unknown) => String(error)))).toContain(
      `quinn has used ${RUNS_PER_DAY} of ${RUNS_PER_DAY} runs today`,
    );
    const storage = openSqlite(join(server.directory, "opspilot.sqlite"));
    const runs = await Promise.all([first, second, third].map((id) => storage.storage.threadRecords(id)));
    storage.close();
    expect(runs.map((records) => records.runs.length)).toEqual([1, 1, 0]);
    // Another user's runs are their own.
    const { thread_id: other } = await as(TOKENS.alice).threads.create();
    expect((await ask(as(TOKENS.alice), other, "how is order-service doing in prod?")).stop?.reason).toBe(
      "final_answer",
    );
  });

  it("sends the spans of its runs to OpenTelemetry: the seed question, its pause and its resume (issue 29)", async () => {
    const tara = as(TOKENS.tara);
    const { thread_id: threadId } = await tara.threads.create();
    await ask(tara, threadId, SEED);
    const pause = (await pauseOf(tara, threadId))!;
    const final = await answer(tara, threadId, {
      decisions: pause.calls.map((call) => ({
        callId: call.callId,
        action: "approve",
        argsHash: call.argsHash,
        params: { environment: "prod" },
      })),
    });
    expect(final.stop?.reason).toBe("final_answer");
    const runIds = (await tara.runs.list(threadId)).map((run) => run.run_id);
    const agentsOf = () =>
      collector
        .spans()
        .filter(
          (span) =>
            span.name === "invoke_agent opspilot" && attrs(span.attributes)["gen_ai.conversation.id"] === threadId,
        );
    // Spans leave in batches, about a second after they end.
    expect(await waitFor(() => agentsOf().length === 2, 15_000)).toBe(true);
    const [paused, resumed] = agentsOf().sort(
      (a, b) =>
        Number(attrs(a.attributes)["opspilot.run.resumed"]) - Number(attrs(b.attributes)["opspilot.run.resumed"]),
    );
    expect(attrs(paused!.attributes)).toMatchObject({
      "opspilot.stop_reason": "interrupted",
      "gen_ai.agent.name": "opspilot",
    });
    expect(attrs(resumed!.attributes)).toMatchObject({
      "opspilot.stop_reason": "final_answer",
      "opspilot.run.resumed": true,
    });
    // The server's own run ids, one span each.
    expect([paused, resumed].map((span) => attrs(span!.attributes)["opspilot.run.id"]).sort()).toEqual(runIds.sort());
    expect(paused!.events?.map((event) => event.name)).toEqual(["pause"]);
    expect(attrs(paused!.events![0]!.attributes)["opspilot.interrupt.id"]).toBe(pause.interruptId);
    expect(resumed!.events?.map((event) => event.name)).toEqual(["resume", "approval"]);
    expect(resumed!.links).toEqual([expect.objectContaining({ traceId: paused!.traceId, spanId: paused!.spanId })]);
    // Under each run: a chat span per model call, with tokens, and an execute_tool span per call, with its id.
    const traces = new Set([paused!.traceId, resumed!.traceId]);
    const under = collector.spans().filter((span) => traces.has(span.traceId) && span.parentSpanId);
    const chats = under.filter((span) => span.name === "chat demo");
    expect(chats).toHaveLength(3);
    for (const chat of chats) expect(attrs(chat.attributes)["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    const state = await tara.threads.getState<{ messages: Array<{ type: string; tool_call_id?: string }> }>(threadId);
    const callIds = state.values.messages.filter((message) => message.type === "tool").map((m) => m.tool_call_id);
    expect(
      under
        .filter((span) => span.name.startsWith("execute_tool "))
        .map((span) => attrs(span.attributes)["gen_ai.tool.call.id"])
        .sort(),
    ).toEqual(callIds.sort());
    // No caller's token, and nothing of the conversation.
    const sent = collector.bodies.join("\n");
    for (const token of Object.values(TOKENS)) expect(sent).not.toContain(token);
    expect(sent).not.toContain("支付");
  });
});
