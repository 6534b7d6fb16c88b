import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, openApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import type { RunEvent } from "../../src/contracts/events.js";
import type { RunUser } from "../../src/contracts/user.js";
import type { AgentStateType } from "../../src/graph/state.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { ApiClient, readSseFrames, frameToEvent } from "../fixtures/http.js";
import { answerMessage, callsMessage, ScriptedChatModel, type ScriptedCall } from "../fixtures/scripted-model.js";
import { Gate, lastAsk } from "../fixtures/gate-tool.js";
import { testTools } from "../fixtures/test-tools.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-multitask-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** "slow …" calls the gate, "risky …" proposes a high-risk write, anything else is answered; after a result, an answer. */
function respond(call: ScriptedCall) {
  const ask = lastAsk(call.messages);
  if (ToolMessage.isInstance(call.messages.at(-1))) return answerMessage(`done: ${ask}`);
  if (ask.startsWith("slow")) return callsMessage([{ name: "gate", args: { query: ask } }]);
  if (ask.startsWith("risky"))
    return callsMessage([{ name: "write_high", args: { target: "payment-service", environment: "prod" } }]);
  return answerMessage(`answer: ${ask}`);
}

interface Served {
  app: App;
  server: RunningServer;
  client: ApiClient;
  events: RunEvent[];
  /** Resolves with the recorded events once `count` runs have finished on the thread. */
  finished(threadId: string, count: number): Promise<RunEvent[]>;
  close(): Promise<void>;
}

/** A real server over a SQLite file in `directory`, whose recorded events the test can await. */
async function serve(options: { file: string; gate?: Gate; tokens?: Map<string, RunUser> }): Promise<Served> {
  const events: RunEvent[] = [];
  const watchers = new Set<() => void>();
  const app = createApp({
    env: loadEnv({}),
    dbPath: join(directory, options.file),
    model: new ScriptedChatModel({ script: Array.from({ length: 60 }, () => respond) }),
    tools: () => [...(options.gate ? [options.gate.tool()] : []), ...testTools()],
    onEvent: (event) => {
      events.push(event);
      for (const watcher of watchers) watcher();
    },
  });
  const server = await startServer({
    runtime: app.runtime,
    host: "127.0.0.1",
    port: 0,
    rateLimitPerMinute: 0,
    logger: { error: () => undefined },
    ...(options.tokens ? { auth: { tokens: options.tokens } } : {}),
  });
  const finished = (threadId: string, count: number) =>
    new Promise<RunEvent[]>((resolve) => {
      const check = () => {
        const mine = events.filter((event) => event.threadId === threadId);
        if (mine.filter((event) => event.type === "run_finished").length < count) return;
        watchers.delete(check);
        resolve(mine);
      };
      watchers.add(check);
      check();
    });
  return {
    app,
    server,
    client: new ApiClient(server.url),
    events,
    finished,
    close: async () => {
      await server.close();
      await app.close();
    },
  };
}

/** POSTs a message with a strategy; the SSE events when it streams, else the JSON answer. */
async function post(
  client: ApiClient,
  threadId: string,
  body: Record<string, unknown>,
): Promise<{ status: number; json: Record<string, unknown>; events: RunEvent[] }> {
  const response = await client.request("POST", `/api/threads/${threadId}/runs`, body);
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream"))
    return { status: response.status, json: (await response.json()) as Record<string, unknown>, events: [] };
  const events: RunEvent[] = [];
  for await (const frame of readSseFrames(response.body!)) events.push(frameToEvent(frame));
  return { status: response.status, json: {}, events };
}

const state = async (app: App, threadId: string) =>
  (await app.graph.getState({ configurable: { thread_id: threadId } })).values as AgentStateType;
const userAsks = (messages: BaseMessage[]) =>
  messages.filter((message) => HumanMessage.isInstance(message)).map((message) => String(message.content));

describe("multitaskStrategy on POST /api/threads/:id/runs", () => {
  it("refuses a message to a running thread with 409 naming the strategies, and a bad strategy with 400", async () => {
    const gate = new Gate();
    const served = await serve({ file: "reject.sqlite", gate });
    try {
      const threadId = await served.client.createThread();
      const first = post(served.client, threadId, { message: "slow first" });
      await gate.entered;
      for (const body of [{ message: "again" }, { message: "again", multitaskStrategy: "reject" }]) {
        const refused = await post(served.client, threadId, body);
        expect(refused.status).toBe(409);
        expect(refused.json).toEqual({
          error: {
            code: "thread_busy",
            message:
              `Thread ${threadId} is already running; wait for it to finish or cancel it.` +
              ' Or send it with "multitaskStrategy": "enqueue" to run it when the thread is free' +
              ' (after the run ends and any pause is answered), or "interrupt" to stop the run (or close the pause) and run it now.',
          },
        });
      }
      const bad = await post(served.client, threadId, { message: "again", multitaskStrategy: "rollback" });
      expect(bad).toMatchObject({
        status: 400,
        json: {
          error: {
            code: "invalid_request",
            message: 'multitaskStrategy: must be "reject" (the default), "enqueue" or "interrupt"',
          },
        },
      });
      gate.open();
      expect((await first).events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
      expect(userAsks((await state(served.app, threadId)).messages)).toEqual(["slow first"]);
    } finally {
      await served.close();
    }
  });

  it("queues messages sent during a run and runs them after it, in order, each once", async () => {
    const gate = new Gate();
    const served = await serve({ file: "enqueue.sqlite", gate });
    try {
      const threadId = await served.client.createThread();
      const first = post(served.client, threadId, { message: "slow first" });
      await gate.entered;
      const second = await post(served.client, threadId, { message: "second", multitaskStrategy: "enqueue" });
      const third = await post(served.client, threadId, { message: "third", multitaskStrategy: "enqueue" });
      expect(second).toMatchObject({ status: 202, json: { queued: true, position: 1 } });
      expect(third).toMatchObject({ status: 202, json: { queued: true, position: 2 } });
      const { body } = await served.client.thread(threadId);
      expect(body).toMatchObject({
        status: "running",
        queued: [
          { messageId: second.json.messageId, content: "second", strategy: "enqueue", position: 1, userId: "local" },
          { messageId: third.json.messageId, content: "third", strategy: "enqueue", position: 2, userId: "local" },
        ],
      });
      gate.open();
      await first;
      const events = await served.finished(threadId, 3);
      const answers = events.filter((event) => event.type === "assistant_message").map((event) => event.content);
      expect(answers).toEqual(["done: slow first", "answer: second", "answer: third"]);
      const messages = (await state(served.app, threadId)).messages;
      expect(userAsks(messages)).toEqual(["slow first", "second", "third"]);
      // The queued message became the thread's user message under the id the 202 named.
      expect(messages.filter((message) => HumanMessage.isInstance(message)).map((message) => message.id)).toContain(
        second.json.messageId,
      );
      expect((await served.client.thread(threadId)).body.queued).toBeUndefined();
    } finally {
      await served.close();
    }
  });

  it("streams an enqueued message at once when the thread is idle", async () => {
    const served = await serve({ file: "idle.sqlite" });
    try {
      const threadId = await served.client.createThread();
      const posted = await post(served.client, threadId, { message: "hello", multitaskStrategy: "enqueue" });
      expect(posted.status).toBe(200);
      expect(posted.events.filter((event) => event.type === "assistant_message")).toMatchObject([
        { content: "answer: hello" },
      ]);
    } finally {
      await served.close();
    }
  });

  it("keeps a queued message across a restart on the same SQLite file and runs it once the server is back", async () => {
    const gate = new Gate();
    const before = await serve({ file: "restart.sqlite", gate });
    const threadId = await before.client.createThread();
    // The server ends this stream when it closes.
    const first = post(before.client, threadId, { message: "slow first" }).catch(() => undefined);
    await gate.entered;
    const queued = await post(before.client, threadId, { message: "after restart", multitaskStrategy: "enqueue" });
    expect(queued).toMatchObject({ status: 202, json: { queued: true, position: 1 } });
    // Closing cancels the run in flight; the queued message must wait for the next process, not start now.
    await before.close();
    await first;
    expect(userAsks((await stateOfFile("restart.sqlite", threadId)).messages)).toEqual(["slow first"]);

    const after = await serve({ file: "restart.sqlite" });
    try {
      const events = await after.finished(threadId, 1);
      expect(events.filter((event) => event.type === "assistant_message")).toMatchObject([
        { content: "answer: after restart" },
      ]);
      expect(userAsks((await state(after.app, threadId)).messages)).toEqual(["slow first", "after restart"]);
    } finally {
      await after.close();
    }
  });

  it("interrupts a pause: its call is rejected as superseded by the sender, then the new message runs", async () => {
    const served = await serve({ file: "interrupt-pause.sqlite" });
    try {
      const threadId = await served.client.createThread();
      const paused = await post(served.client, threadId, { message: "risky restart" });
      expect(paused.events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });
      const pausedRun = paused.events[0]!.runId;
      const posted = await post(served.client, threadId, { message: "never mind", multitaskStrategy: "interrupt" });
      expect(posted.status).toBe(200);
      expect(posted.events.filter((event) => event.type === "assistant_message")).toMatchObject([
        { content: "answer: never mind" },
      ]);
      const { body } = await served.client.thread(threadId);
      const messages = body.messages as Array<Record<string, unknown>>;
      expect(messages.find((message) => message.role === "tool")).toMatchObject({
        tool: "write_high",
        ok: false,
        errorCode: "rejected_by_user",
        decision: { action: "reject", by: "local", message: "superseded by a new message" },
      });
      expect(body.status).toBe("idle");
      // The pause's run ended as cancelled, recorded before the new run started.
      const recorded = await served.client.eventsAfter(threadId, 0);
      expect(recorded.filter((event) => event.runId === pausedRun && event.type === "run_finished")).toMatchObject([
        { stopReason: "interrupted" },
        { stopReason: "cancelled", paused: true },
      ]);
      const { decisions } = await served.app.storage.threadRecords(threadId);
      expect(decisions).toMatchObject([{ action: "reject", user_id: "local", message: "superseded by a new message" }]);
      // Pairing: the one call of the thread has exactly one result.
      const results = (await state(served.app, threadId)).messages.filter((message) => ToolMessage.isInstance(message));
      expect(results).toHaveLength(1);
    } finally {
      await served.close();
    }
  });

  it("interrupts a running run: it is cancelled as Stop does, then the new message runs", async () => {
    const gate = new Gate();
    const served = await serve({ file: "interrupt-run.sqlite", gate });
    try {
      const threadId = await served.client.createThread();
      const first = post(served.client, threadId, { message: "slow first" });
      await gate.entered;
      const posted = await post(served.client, threadId, { message: "now this", multitaskStrategy: "interrupt" });
      expect(posted.status).toBe(200);
      expect(posted.events.filter((event) => event.type === "assistant_message")).toMatchObject([
        { content: "answer: now this" },
      ]);
      const stopped = (await first).events;
      expect(stopped.filter((event) => event.type === "tool_result")).toMatchObject([
        { tool: "gate", ok: false, errorCode: "cancelled" },
      ]);
      expect(stopped.at(-1)).toMatchObject({ type: "run_finished", stopReason: "cancelled" });
      expect(userAsks((await state(served.app, threadId)).messages)).toEqual(["slow first", "now this"]);
    } finally {
      await served.close();
    }
  });

  it("refuses interrupt to a viewer with 403, and changes nothing", async () => {
    const tokens = new Map<string, RunUser>([["viewer-token", { id: "vera", role: "viewer" }]]);
    const served = await serve({ file: "viewer.sqlite", tokens });
    try {
      const client = new ApiClient(served.server.url, "viewer-token");
      const threadId = await client.createThread();
      await client.run(threadId, "hello");
      const refused = await post(client, threadId, { message: "stop that", multitaskStrategy: "interrupt" });
      expect(refused).toMatchObject({
        status: 403,
        json: {
          error: {
            code: "permission_denied",
            message:
              'A viewer may not interrupt a run or close a pause; send the message with "enqueue" to run it after them.',
          },
        },
      });
      const { body } = await client.thread(threadId);
      expect(body.queued).toBeUndefined();
      expect(userAsks((await state(served.app, threadId)).messages)).toEqual(["hello"]);
    } finally {
      await served.close();
    }
  });
});

/** Two runtimes on one database, both serving the queue: the message queued through B while A runs must start once. */
async function runsOnceAcross(open: (options: Parameters<typeof createApp>[0]) => Promise<App>): Promise<void> {
  const gate = new Gate();
  const model = () => new ScriptedChatModel({ script: Array.from({ length: 20 }, () => respond) });
  const tools = () => [gate.tool(), ...testTools()];
  let finishedRuns = 0;
  let secondFinished!: () => void;
  const bothDone = new Promise<void>((resolve) => (secondFinished = resolve));
  const onEvent = (event: RunEvent) => {
    if (event.type === "run_finished" && ++finishedRuns === 2) secondFinished();
  };
  const one = await open({ model: model(), tools, onEvent });
  const two = await open({ model: model(), tools, onEvent });
  try {
    one.runtime.serveQueue();
    two.runtime.serveQueue();
    const user = { id: "local", role: "operator" };
    const threadId = await one.runtime.createThread(user);
    const first = await one.runtime.postMessage({ threadId, message: "slow first", user });
    if (first.kind !== "started") throw new Error("expected the first message to start");
    const running = collectEvents(first.events);
    await gate.entered;
    const queued = await two.runtime.postMessage({ threadId, message: "queued", user, multitaskStrategy: "enqueue" });
    expect(queued).toMatchObject({ kind: "queued", position: 1 });
    gate.open();
    await running;
    // Both runtimes look for it (one when its run ends, both on their sweeps); it must start once.
    await bothDone;
    expect(userAsks((await state(one, threadId)).messages)).toEqual(["slow first", "queued"]);
    const { runs } = await one.storage.threadRecords(threadId);
    expect(runs).toHaveLength(2);
  } finally {
    await one.close();
    await two.close();
  }
  // Closing settles every run either started: a second start of the message would have finished too.
  expect(finishedRuns).toBe(2);
}

describe("a queued message shared by two runtimes on one database", () => {
  it("runs exactly once whichever runtime takes it (one SQLite file)", async () => {
    const dbPath = join(directory, "shared.sqlite");
    await runsOnceAcross(async (options) => createApp({ ...options, env: loadEnv({}), dbPath }));
  });

  describe.skipIf(skipPostgres)("on PostgreSQL", () => {
    let cluster: PostgresCluster;
    beforeAll(async () => (cluster = await startPostgresCluster()));
    afterAll(async () => cluster?.stop());

    it("runs exactly once whichever process takes it", async () => {
      let instances = 0;
      await runsOnceAcross((options) =>
        openApp({
          ...options,
          env: loadEnv({ DATABASE_URL: cluster.url, OPSPILOT_DB: join(directory, `pg-${++instances}.sqlite`) }),
        }),
      );
    });
  });
});

async function stateOfFile(file: string, threadId: string): Promise<AgentStateType> {
  const app = createApp({
    env: loadEnv({}),
    dbPath: join(directory, file),
    model: new ScriptedChatModel({ script: [] }),
  });
  try {
    return await state(app, threadId);
  } finally {
    await app.close();
  }
}
