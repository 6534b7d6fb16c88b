import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command, MemorySaver } from "@langchain/langgraph";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostedGraph, type HostedGraph } from "../../src/app/hosted-graph.js";
import { loadEnv } from "../../src/config/env.js";
import { pendingInterrupt } from "../../src/graph/pause.js";
import { openSqlite } from "../../src/storage/sqlite/open-sqlite.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";

describe.skipIf(skipPostgres)("the LangGraph server's graph with DATABASE_URL", () => {
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

  /** A replica of the hosted graph on the database at `url`, with its own SQLite file `<file>.sqlite`. */
  const replica = async (url: string, file: string) => {
    const hosted = await hostedGraph(
      loadEnv({ OPSPILOT_DB: join(directory, `${file}.sqlite`), DATABASE_URL: url, OPSPILOT_LOG_LEVEL: "silent" }),
    );
    replicas.push(hosted);
    return hosted;
  };

  it("keeps the write journal and the records in PostgreSQL, where every replica finds them", async () => {
    const url = await cluster.createDatabase("hosted");
    const [a, b] = [await replica(url, "a"), await replica(url, "b")];
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

  it("keeps the demo estate's restarts in PostgreSQL: one replica's restart is every replica's", async () => {
    const url = await cluster.createDatabase("hosted_estate");
    const [a, b] = [await replica(url, "estate-a"), await replica(url, "estate-b")];
    const checkpointer = new MemorySaver();
    a.graph.checkpointer = checkpointer;
    b.graph.checkpointer = checkpointer;
    const config = { configurable: { thread_id: "estate-1", userId: "olga", role: "operator" } };
    await a.graph.invoke({ messages: [{ role: "user", content: "restart payment-service in prod" }] }, config);
    const [call] = pendingInterrupt(await a.graph.getState(config))!.calls;
    await b.graph.invoke(
      new Command({ resume: { decisions: [{ callId: call!.callId, action: "approve", argsHash: call!.argsHash }] } }),
      config,
    );

    // Applied through b, seen by a: the count, the service's state and the key.
    expect(await a.ops.countActions({ action: "restart", service: "payment-service", environment: "prod" })).toBe(1);
    expect(await a.ops.getMetrics("payment-service", "prod")).toMatchObject({ status: "recovering", restartCount: 1 });
    expect((await a.ops.listActions()).map((row) => row.idempotencyKey)).toEqual([`estate-1:${call!.callId}`]);
    // Nothing of it in either replica's own file.
    for (const name of ["a", "b"]) {
      const local = openSqlite(join(directory, `estate-${name}.sqlite`));
      const count = local.db.prepare("SELECT COUNT(*) AS count FROM ops_actions").get() as { count: number };
      local.close();
      expect(count.count).toBe(0);
    }
  }, 60_000);

  it("applies one idempotency key once when two replicas race on it, and queues writes to one service", async () => {
    const url = await cluster.createDatabase("hosted_race");
    const [a, b] = await Promise.all(["race-a", "race-b"].map((file) => replica(url, file)));
    const restart = (store: HostedGraph, key: string) =>
      store.ops.restartService({ service: "order-service", environment: "prod", idempotencyKey: key });

    const same = await Promise.all(Array.from({ length: 8 }, (_, index) => restart(index % 2 ? a : b, "t:same")));
    expect(same.filter((outcome) => !outcome.duplicate)).toHaveLength(1);
    expect(new Set(same.map((outcome) => outcome.result.restartedAt)).size).toBe(1);
    const distinct = await Promise.all(
      Array.from({ length: 6 }, (_, index) => restart(index % 2 ? a : b, `t:${index}`)),
    );
    expect(distinct.map((outcome) => outcome.result.restartCount).sort((x, y) => x - y)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(await b.ops.getMetrics("order-service", "prod")).toMatchObject({ restartCount: 7 });
    await expect(
      a.ops.rollbackDeploy({ service: "payment-service", environment: "prod", idempotencyKey: "t:same" }),
    ).rejects.toThrow(/already used for a different action/);
  }, 60_000);
});
