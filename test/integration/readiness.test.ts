import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { DemoChatModel } from "../../src/demo/index.js";
import { createReadiness } from "../../src/service/observability/readiness.js";
import { storageProbe } from "../../src/service/probes/database-probes.js";
import { startFromEnv, startServer } from "../../src/server/start.js";
import { skipPostgres, startPostgresCluster } from "../fixtures/postgres-cluster.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-readyz-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** `GET path`'s status and JSON body. */
async function get(url: string, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}${path}`);
  return { status: response.status, body: await response.json() };
}

const READY = { status: 200, body: { ready: true, status: "ready", reasons: [] } };

describe("GET /readyz", { timeout: 90_000 }, () => {
  it("is 503 while starting and while draining, 200 otherwise, and /healthz stays 200 throughout", async () => {
    const dbPath = join(directory, "ready.sqlite");
    const app = createApp({ env: loadEnv({}), dbPath, model: new DemoChatModel() });
    const readiness = createReadiness({ database: storageProbe(app.storage, `SQLite ${dbPath}`) });
    const server = await startServer({ runtime: app.runtime, port: 0, readiness, logger: { error: () => undefined } });
    try {
      expect(await get(server.url, "/readyz")).toEqual({
        status: 503,
        body: { ready: false, status: "not_ready", reasons: ["starting"] },
      });
      expect((await get(server.url, "/healthz")).status).toBe(200);
      readiness.markStarted();
      expect(await get(server.url, "/readyz")).toEqual(READY);
      server.readiness.setDraining(true);
      expect(await get(server.url, "/readyz")).toEqual({
        status: 503,
        body: { ready: false, status: "not_ready", reasons: ["draining"] },
      });
      expect((await get(server.url, "/healthz")).status).toBe(200);
      server.readiness.setDraining(false);
      expect(await get(server.url, "/readyz")).toEqual(READY);
    } finally {
      await server.close();
      await app.close();
    }
  });

  it.skipIf(skipPostgres)(
    "is 200 for npm start on PostgreSQL, and 503 naming the database once its server stops, while /healthz stays 200",
    async () => {
      const cluster = await startPostgresCluster();
      let stopped = false;
      const server = await startFromEnv(
        loadEnv({
          DATABASE_URL: cluster.url,
          OPSPILOT_DB: join(directory, "demo.sqlite"),
          PORT: "0",
          OPSPILOT_LOG_LEVEL: "silent",
        }),
      );
      try {
        expect(await get(server.url, "/readyz")).toEqual(READY);
        await cluster.stop();
        stopped = true;
        const gone = await get(server.url, "/readyz");
        expect(gone.status).toBe(503);
        const { reasons } = gone.body as { reasons: string[] };
        expect(reasons).toHaveLength(1);
        expect(reasons[0]).toMatch(new RegExp(`^database: PostgreSQL ${cluster.url.replace(/[.?]/g, "\\$&")}: \\S`));
        expect((await get(server.url, "/healthz")).status).toBe(200);
      } finally {
        await server.close();
        if (!stopped) await cluster.stop();
      }
    },
  );
});
