import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../fixtures/http.js";
import { freePort } from "../fixtures/ports.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";
import type { OpenAITestServer } from "../fixtures/openai-server.js";
import {
  HANDOFF_QUESTION,
  handoffRequests,
  recordedCalls,
  startHandoffModel,
  typesOf,
  untilSlowStep,
  untilTakenOver,
} from "../fixtures/handoff-scenario.js";

const GRACE_SECONDS = 10;

/** One `node dist/main.js` serving the shared database, and how it ended. */
interface Replica {
  client: ApiClient;
  process: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

describe.skipIf(skipPostgres)("SIGTERM to one of two server processes on one PostgreSQL database", () => {
  let cluster: PostgresCluster;
  let model: OpenAITestServer;
  let directory: string;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    [cluster, model] = await Promise.all([startPostgresCluster(), startHandoffModel()]);
    directory = mkdtempSync(join(tmpdir(), "opspilot-sigterm-"));
  });

  afterAll(async () => {
    for (const replica of replicas) replica.process.kill("SIGKILL");
    await Promise.all(replicas.map((replica) => replica.exited));
    await model?.close();
    await cluster?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  async function startReplica(name: string): Promise<Replica> {
    const port = await freePort();
    const child = spawn(process.execPath, ["dist/main.js"], {
      env: {
        PATH: process.env.PATH,
        HOST: "127.0.0.1",
        PORT: String(port),
        DATABASE_URL: cluster.url,
        OPSPILOT_DB: join(directory, `${name}.sqlite`),
        OPSPILOT_MODEL: "openai:gpt-4o-mini",
        OPENAI_BASE_URL: model.baseURL,
        OPSPILOT_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
        OPSPILOT_LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    const replica: Replica = {
      client: new ApiClient(`http://127.0.0.1:${port}`),
      process: child,
      output: () => output,
      exited,
    };
    replicas.push(replica);
    const deadline = Date.now() + 30_000;
    while (
      (await fetch(`${replica.client.baseUrl}/readyz`).then(
        (r) => r.status,
        () => 0,
      )) !== 200
    ) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${name} did not become ready:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return replica;
  }

  it("hands the run over at its next checkpoint, exits 0 within the grace, and the other takes the thread over by itself, running nothing twice", async () => {
    const [a, b] = await Promise.all([startReplica("a"), startReplica("b")]);
    const threadId = await a.client.createThread();
    const streamed = a.client.run(threadId, HANDOFF_QUESTION);
    await untilSlowStep(model);

    const stoppedAt = performance.now();
    a.process.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const readyz = await fetch(`${a.client.baseUrl}/readyz`);
    expect([readyz.status, await readyz.json()]).toEqual([
      503,
      { ready: false, status: "not_ready", reasons: ["draining"] },
    ]);
    const other = await a.client.createThread();
    const refused = await a.client.request("POST", `/api/threads/${other}/runs`, { message: "hello" });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refused.json()).toMatchObject({ error: { code: "shutting_down" } });

    const handedOver = await streamed;
    expect(typesOf(handedOver)).toEqual(["run_started", "tool_call", "tool_result", "tool_call"]);
    expect(await a.exited).toEqual({ code: 0, signal: null });
    expect(performance.now() - stoppedAt).toBeLessThan(GRACE_SECONDS * 1_000);

    // Nobody asks for a recovery: the other replica's `takeover` job finds the hand-over and finishes the run.
    const finished = await untilTakenOver(b.client, threadId, handedOver.at(-1)!.seq);
    expect(typesOf(finished)).toEqual(["run_started", "tool_result", "assistant_message", "run_finished"]);
    expect(finished.at(-1)).toMatchObject({ stopReason: "final_answer" });

    const thread = (await b.client.thread(threadId)).body;
    expect(thread).toMatchObject({ status: "idle" });
    expect(thread.unfinished).toBeUndefined();
    expect((thread.messages as Array<{ role: string }>).map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(handoffRequests(model)).toHaveLength(3);
    expect(await recordedCalls(b.client, threadId)).toEqual([
      "call_first search_resource ok",
      "call_second search_resource ok",
    ]);
  }, 90_000);
});
