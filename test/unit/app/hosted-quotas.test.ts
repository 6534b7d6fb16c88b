import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hostedGraph } from "../../../src/app/hosted-graph.js";
import { admitRun } from "../../../src/app/studio.js";
import { loadEnv } from "../../../src/config/env.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-hosted-quotas-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("daily quotas on the LangGraph server (issue 25)", () => {
  it("refuses a run of a user who spent the token quota, judged by the authenticated caller", async () => {
    const hosted = await hostedGraph(
      loadEnv({
        OPSPILOT_DB: join(directory, "opspilot.sqlite"),
        OPSPILOT_QUOTA_TOKENS_PER_DAY: "100",
        OPSPILOT_LOG_LEVEL: "silent",
      }),
    );
    await hosted.storage.recordRunStart({ runId: "r1", threadId: "t1", userId: "vic", startedAt: Date.now() });
    await hosted.storage.recordStep({
      runId: "r1",
      step: 1,
      latencyMs: 10,
      inputTokens: 120,
      outputTokens: 30,
      toolCalls: 1,
      costUsd: 0,
    });
    const as = (identity: string, claimed = {}) => ({
      configurable: { ...claimed, langgraph_auth_user: { identity, role: "viewer", permissions: [] } },
    });
    await expect(admitRun(hosted, as("vic"))).rejects.toMatchObject({
      name: "QuotaExceededError",
      message: expect.stringContaining("vic has used 150 of 100 tokens today"),
    });
    // Claiming another user in the run's options does not escape the caller's quota.
    await expect(admitRun(hosted, as("vic", { userId: "ann" }))).rejects.toMatchObject({ name: "QuotaExceededError" });
    await expect(admitRun(hosted, as("ann"))).resolves.toBeUndefined();
    await hosted.close();
  });
});
