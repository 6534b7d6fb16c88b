import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command, MemorySaver } from "@langchain/langgraph";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostedGraph, type HostedGraph } from "../../src/app/hosted-graph.js";
import { loadEnv } from "../../src/config/env.js";
import { pendingInterrupt } from "../../src/graph/pause.js";
import { openSqlite } from "../../src/storage/open-sqlite.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";

describe.skipIf(skipPostgres)("the LangGraph server's graph with DATABASE_URL (issue 25)", () => {
  let cluster: PostgresCluster;
  let directory: string;
  const replicas: HostedGraph[] = [];

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    directory = mkdtempSync(join(tmpdir(), "opspilot-hosted-pg-"));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await cluster?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it("keeps the write journal and the records in PostgreSQL, where every replica finds them", async () => {
    const url = await cluster.createDatabase("hosted");
    const replica = async (name: string) => {
      const env = loadEnv({
        OPSPILOT_DB: join(directory, `${name}.sqlite`),
        DATABASE_URL: url,
        OPSPILOT_LOG_LEVEL: "silent",
      });
      const hosted = await hostedGraph(env);
      replicas.push(hosted);
      return hosted;
    };
    const [a, b] = [await replica("a"), await replica("b")];
    // The server's own checkpointer, shared by its replicas.
    const checkpointer = new MemorySaver();
    a.graph.checkpointer = checkpointer;
    b.graph.checkpointer = checkpointer;
    const config = { configurable: { thread_id: "hosted-1", userId: "olga", role: "operator" } };
    await a.graph.invoke({ messages: [{ role: "user", content: "restart payment-service in prod" }] }, config);
    const pause = pendingInterrupt(await a.graph.getState(config))!;
    const [call] = pause.calls;
    await b.graph.invoke(
      new Command({ resume: { decisions: [{ callId: call!.callId, action: "approve", argsHash: call!.argsHash }] } }),
      config,
    );

    const { decisions } = await a.storage.threadRecords("hosted-1");
    expect(decisions.map((row) => [row.action, row.user_id])).toEqual([["approve", "olga"]]);
    expect(await a.storage.getEntry("hosted-1", call!.callId)).toMatchObject({ state: "finished" });
    const local = openSqlite(join(directory, "b.sqlite"));
    expect((await local.storage.threadRecords("hosted-1")).decisions).toEqual([]);
    expect(await local.storage.getEntry("hosted-1", call!.callId)).toBeUndefined();
    local.close();
  }, 60_000);
});
