import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, openApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { createServer } from "../../src/server/app.js";
import type { RunUser } from "../../src/contracts/user.js";
import { SqliteStorage } from "../../src/storage/sqlite/sqlite-storage.js";
import { TITLE_MAX_CHARS, threadTitle } from "../../src/service/events/thread-list.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";
import { testTools } from "../fixtures/test-tools.js";

const alice: RunUser = { id: "alice", role: "operator" };
const bob: RunUser = { id: "bob", role: "operator" };
const root: RunUser = { id: "root", role: "admin" };
const TOKENS = new Map([
  ["alice-token-0001", alice],
  ["bob-token-00001", bob],
  ["root-token-0001", root],
]);
const LONG = `Please look at every error the payment service logged in prod over the last day, ${"and more ".repeat(20)}`;

interface Listed {
  threadId: string;
  status: string;
  title: string;
  updatedAt: string;
  waitingForYou: boolean;
}

/** Alice's "old-thread", made before titles were kept: listed idle and untitled, then run once. */
async function listUntitledThenRun(app: App) {
  expect(await app.runtime.listThreads(alice, { limit: 10 })).toEqual([
    {
      threadId: "old-thread",
      status: "idle",
      title: "",
      updatedAt: new Date(1).toISOString(),
      waitingForYou: false,
    },
  ]);
  await collectEvents(await app.runtime.startRun({ threadId: "old-thread", message: "an old question", user: alice }));
}

/**
 * The thread list over one backend: each user sees only their own threads, the paused one
 * first, then the most recent; `mine` and `limit` are checked; titles come from first messages.
 */
function threadListSuite(open: (model: ScriptedChatModel) => Promise<App>) {
  let app: App;
  let http: ReturnType<typeof createServer>;
  const ids: Record<string, string> = {};
  const get = async (query: string, token = "alice-token-0001") => {
    const response = await http.request(`/api/threads${query}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    const model = new ScriptedChatModel({
      script: [
        answerMessage("x is fine."),
        callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" } }]),
        answerMessage("Found y."),
        answerMessage("Bob's answer."),
        answerMessage("A second answer on the first thread."),
      ],
    });
    app = await open(model);
    http = createServer({ runtime: app.runtime, auth: { tokens: TOKENS }, rateLimitPerMinute: 0 });
    const run = async (user: RunUser, name: string, message: string, threadId?: string) => {
      ids[name] = threadId ?? (await app.runtime.createThread(user));
      await collectEvents(await app.runtime.startRun({ threadId: ids[name]!, message, user }));
      // Distinct event times, so "newest first" is decided by the clock and not by chance.
      await new Promise((resolve) => setTimeout(resolve, 15));
    };
    await run(alice, "first", "check x");
    await run(alice, "paused", "restart pay in prod");
    await run(alice, "latest", LONG);
    await run(bob, "bobs", "bob asks");
    ids.empty = await app.runtime.createThread(alice);
  });

  afterAll(async () => {
    await app?.close();
  });

  it("lists the caller's threads, the one waiting for them first, then the newest", async () => {
    const { status, body } = await get("?mine=1");
    expect(status).toBe(200);
    const threads = body.threads as Listed[];
    expect(threads.map((thread) => thread.threadId)).toEqual([ids.paused, ids.empty, ids.latest, ids.first]);
    expect(threads[0]).toMatchObject({ status: "interrupted", waitingForYou: true, title: "restart pay in prod" });
    expect(threads.slice(1).every((thread) => thread.status === "idle" && !thread.waitingForYou)).toBe(true);
    expect(threads[1]!.title).toBe("");
    expect(threads[2]!.title).toBe(threadTitle(LONG));
    expect(threads[2]!.title.length).toBeLessThanOrEqual(TITLE_MAX_CHARS);
    expect(threads[2]!.title.endsWith("…")).toBe(true);
    expect(threads[3]!.title).toBe("check x");
    for (const thread of threads) expect(new Date(thread.updatedAt).toISOString()).toBe(thread.updatedAt);
  });

  it("keeps the first message as the title when the thread gets another", async () => {
    await collectEvents(await app.runtime.startRun({ threadId: ids.first!, message: "and now?", user: alice }));
    const threads = (await get("")).body.threads as Listed[];
    // `mine` may be left out: the list only ever holds the caller's own threads.
    expect(threads.map((thread) => thread.threadId)).toEqual([ids.paused, ids.first, ids.empty, ids.latest]);
    expect(threads[1]!.title).toBe("check x");
    expect((await get("?mine=true")).body).toEqual({ threads });
  });

  it("shows nobody else's threads, not even to an admin", async () => {
    const bobs = (await get("?mine=1", "bob-token-00001")).body.threads as Listed[];
    expect(bobs.map((thread) => [thread.threadId, thread.title])).toEqual([[ids.bobs, "bob asks"]]);
    expect((await get("?mine=1", "root-token-0001")).body).toEqual({ threads: [] });
    // The team's threads are the alert user's, not another person's: asking for them adds none of bob's.
    expect((await get("?mine=1&shared=1", "root-token-0001")).body).toEqual({ threads: [] });
    const anonymous = await http.request("/api/threads?mine=1");
    expect(anonymous.status).toBe(401);
  });

  it("takes a limit, and refuses a bad query with a 400 that says what is wrong", async () => {
    const one = (await get("?mine=1&limit=1")).body.threads as Listed[];
    expect(one.map((thread) => thread.threadId)).toEqual([ids.paused]);
    const refusals = await Promise.all(
      [
        "?mine=0",
        "?mine=yes",
        "?mine=",
        "?limit=0",
        "?limit=abc",
        "?limit=1.5",
        "?limit=100000",
        "?mine=1&mine=1",
        "?owner=bob",
        "?shared=no",
      ].map(async (query) => [query, await get(query)] as const),
    );
    for (const [query, { status, body }] of refusals) {
      expect(status, query).toBe(400);
      expect((body.error as { code: string }).code, query).toBe("invalid_request");
    }
    const message = (query: string) =>
      (refusals.find(([q]) => q === query)![1].body.error as { message: string }).message;
    expect(message("?mine=0")).toMatch(/^mine: must be "1" or "true"/);
    expect(message("?limit=0")).toMatch(/^limit: must be an integer from 1 to 200/);
    expect(message("?owner=bob")).toMatch(/owner/);
    expect(message("?shared=no")).toMatch(/^shared: must be "1" or "true"/);
    expect(message("?mine=1&mine=1")).toMatch(/^mine: give it at most once/);
  });
}

describe("GET /api/threads on SQLite", () => {
  const directory = mkdtempSync(join(tmpdir(), "opspilot-threads-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  threadListSuite(async (model) =>
    createApp({
      env: loadEnv({}),
      dbPath: join(directory, "opspilot.sqlite"),
      model,
      tools: () => testTools(),
    }),
  );

  it("opens a database written before threads had titles, and titles its threads from their checkpoints", async () => {
    const path = join(directory, "old.sqlite");
    const old = new Database(path);
    old.exec(
      "CREATE TABLE opspilot_threads (thread_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, created_at INTEGER NOT NULL)",
    );
    old.prepare("INSERT INTO opspilot_threads VALUES (?, ?, ?)").run("old-thread", "alice", 1);
    old.close();
    const app = createApp({
      env: loadEnv({}),
      dbPath: path,
      model: new ScriptedChatModel({ script: [answerMessage("done")] }),
      tools: () => testTools(),
    });
    try {
      await listUntitledThenRun(app);
      // A thread that ran before titles were kept: its title is read from its checkpoint once.
      const db = new Database(path);
      db.prepare("UPDATE opspilot_threads SET title = NULL").run();
      db.close();
      const [listed] = await app.runtime.listThreads(alice, { limit: 10 });
      expect(listed).toMatchObject({ threadId: "old-thread", title: "an old question", status: "idle" });
      const check = new Database(path, { readonly: true });
      expect(check.prepare("SELECT title FROM opspilot_threads").get()).toEqual({ title: "an old question" });
      check.close();
    } finally {
      await app.close();
    }
    // The storage alone, on the migrated file: the index on the owner is there.
    const db = new Database(path);
    new SqliteStorage(db);
    const indexes = db.prepare("PRAGMA index_list(opspilot_threads)").all() as Array<{ name: string }>;
    expect(indexes.map((index) => index.name)).toContain("opspilot_threads_user");
    db.close();
  });
});

describe.skipIf(skipPostgres)("GET /api/threads on PostgreSQL", () => {
  let cluster: PostgresCluster;
  const directory = mkdtempSync(join(tmpdir(), "opspilot-threads-pg-"));
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  threadListSuite(async (model) =>
    openApp({
      env: loadEnv({ DATABASE_URL: cluster.url, OPSPILOT_DB: join(directory, "demo.sqlite") }),
      model,
      tools: () => testTools(),
    }),
  );

  it("adds the title column and the owner index to a database created before them", async () => {
    const url = await cluster.createDatabase("opspilot_old_threads");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      "CREATE TABLE opspilot_threads (thread_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, created_at BIGINT NOT NULL)",
    );
    await client.query("INSERT INTO opspilot_threads VALUES ('old-thread', 'alice', 1)");
    const app = await openApp({
      env: loadEnv({ DATABASE_URL: url, OPSPILOT_DB: join(directory, "old-demo.sqlite") }),
      model: new ScriptedChatModel({ script: [answerMessage("done")] }),
      tools: () => testTools(),
    });
    try {
      await listUntitledThenRun(app);
      expect(await app.runtime.listThreads(alice, { limit: 10 })).toMatchObject([{ title: "an old question" }]);
      const { rows } = await client.query(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'opspilot_threads' ORDER BY indexname",
      );
      expect(rows.map((row: { indexname: string }) => row.indexname)).toContain("opspilot_threads_user");
    } finally {
      await app.close();
      await client.end();
    }
  });
});
