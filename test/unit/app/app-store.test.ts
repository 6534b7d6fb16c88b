import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../../src/app/assemble.js";
import { loadEnv } from "../../../src/config/env.js";
import { pastConclusions, recordConclusion } from "../../../src/service/incidents/past-incidents.js";
import { openSqlite } from "../../../src/storage/sqlite/open-sqlite.js";
import { SqliteStore } from "../../../src/storage/sqlite/sqlite-store.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-app-store-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("the app's LangGraph store", () => {
  it("is a SqliteStore in the app's file, kept after close, and not compiled into the graph", async () => {
    const path = join(directory, "app.sqlite");
    const app = createApp({ env: loadEnv({ OPSPILOT_DB: path, OPSPILOT_LOG_LEVEL: "silent" }) });
    const conclusion = {
      incidentId: "inc_1",
      alertname: "PaymentHighErrorRate",
      labels: { service: "payment-service" },
      threadId: "incident-inc_1",
      link: "http://127.0.0.1:8787/#/threads/incident-inc_1",
      conclusion: "The DB pool was exhausted.",
      stopReason: "final_answer" as const,
      at: Date.UTC(2026, 11, 1),
    };
    try {
      expect(app.store).toBeInstanceOf(SqliteStore);
      // No node reads it: the graph is compiled without it (a compiled-in store is polled through every run).
      expect(app.graph.store).toBeUndefined();
      await recordConclusion(app.store, conclusion);
    } finally {
      await app.close();
    }
    const reopened = openSqlite(path);
    try {
      expect(await pastConclusions(reopened.store, { alertname: "PaymentHighErrorRate", labels: {} })).toEqual([]);
      expect(
        await pastConclusions(reopened.store, {
          alertname: "PaymentHighErrorRate",
          labels: { service: "payment-service" },
        }),
      ).toEqual([conclusion]);
    } finally {
      reopened.close();
    }
  });
});
