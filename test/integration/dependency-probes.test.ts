import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { RunMetrics } from "../../src/service/observability/metrics.js";
import { startOpenAIServer, type OpenAITestServer, type RecordedRequest } from "../fixtures/openai-server.js";
import { ScriptedChatModel } from "../fixtures/scripted-model.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-dependency-probes-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** The strict mock model's answer to the probe: a call of the tool it offered. */
function callsOfferedTool(request: RecordedRequest) {
  const offered = (request.body.tools ?? []) as Array<{ function?: { name?: string } }>;
  const name = offered[0]?.function?.name;
  return name ? { toolCalls: [{ name, arguments: "{}" }] } : { status: 400, error: { message: "no tool offered" } };
}

/** The model's `opspilot_dependency_up` sample and its last-ok timestamp, as `/metrics` shows them. */
async function modelSamples(metrics: RunMetrics): Promise<{ up?: number; lastOk?: number }> {
  const text = await metrics.registry.metrics();
  const value = (name: string) => {
    const line = text.split("\n").find((entry) => entry.startsWith(`${name}{dependency="model"} `));
    return line === undefined ? undefined : Number(line.split(" ")[1]);
  };
  return { up: value("opspilot_dependency_up"), lastOk: value("opspilot_dependency_last_ok_timestamp_seconds") };
}

async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the dependency probes", { timeout: 60_000 }, () => {
  it("export opspilot_dependency_up 1 for a working model, 0 once its endpoint dies and 1 again once it is back", async () => {
    let model: OpenAITestServer = await startOpenAIServer();
    const respond = () => {
      for (let i = 0; i < 50; i += 1) model.enqueue(callsOfferedTool);
    };
    respond();
    const port = Number(new URL(model.baseURL).port);
    const metrics = new RunMetrics();
    const app = createApp({
      env: loadEnv({
        OPSPILOT_DB: join(directory, "probes.sqlite"),
        OPSPILOT_MODEL: "openai:test-model",
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: "sk-test-key",
        OPSPILOT_DEPENDENCY_PROBE_INTERVAL: "1s",
      }),
      model: new ScriptedChatModel({ script: [] }),
      onDependencyProbes: (results, at) => metrics.dependenciesProbed(results, at),
    });
    try {
      expect(app.jobs.jobs()).toContain("dependency-probes");
      const startedAt = Date.now() / 1000;
      app.start();
      // The first probe runs at start, not a period later.
      await until(async () => (await modelSamples(metrics)).up === 1, 900);
      const firstOk = (await modelSamples(metrics)).lastOk!;
      expect(firstOk).toBeGreaterThanOrEqual(Math.floor(startedAt));
      expect(model.requests[0]!.headers.authorization).toBe("Bearer sk-test-key");

      await model.close();
      await until(async () => (await modelSamples(metrics)).up === 0);
      // The last success stays what it was while the endpoint is down.
      const down = await modelSamples(metrics);
      expect(down.lastOk).toBeGreaterThanOrEqual(firstOk);

      model = await startOpenAIServer([], port);
      respond();
      await until(async () => (await modelSamples(metrics)).up === 1);
      expect((await modelSamples(metrics)).lastOk).toBeGreaterThan(down.lastOk!);
    } finally {
      await app.close();
      await model.close();
    }
  });

  it("is not scheduled when no one takes its results", async () => {
    const app = createApp({ env: loadEnv({ OPSPILOT_DB: join(directory, "none.sqlite") }) });
    try {
      expect(app.jobs.jobs()).not.toContain("dependency-probes");
    } finally {
      await app.close();
    }
  });
});
