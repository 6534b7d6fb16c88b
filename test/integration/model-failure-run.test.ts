import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { createOpenAIChatModel } from "../../src/models/providers/openai-model.js";
import { loadEnv } from "../../src/config/env.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { RunMetrics } from "../../src/service/observability/metrics.js";
import { startOpenAIServer, type Reply } from "../fixtures/openai-server.js";
import { freePort } from "../fixtures/ports.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-model-failure-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const user = { id: "tester", role: "operator" };

/** One run against `baseURL` (no retries, a 1 s time limit): its answer, warn lines, finish event and metrics. */
async function failedRun(baseURL: string) {
  const warned: string[] = [];
  const metrics = new RunMetrics();
  const app = createApp({
    env: loadEnv({ OPSPILOT_DB: join(directory, `${await freePort()}.sqlite`) }),
    model: createOpenAIChatModel({
      model: "test-model",
      baseURL,
      apiKey: "sk-secret-key",
      timeoutMs: 1_000,
      maxRetries: 0,
    }),
    logger: { error: () => undefined, warn: (line) => warned.push(line) },
    onEvent: (event) => metrics.observe(event),
  });
  try {
    const threadId = await app.runtime.createThread(user);
    const events = await collectEvents(await app.runtime.startRun({ threadId, message: "check payments", user }));
    const answer = events.flatMap((event) => (event.type === "assistant_message" ? [event.content] : [])).at(-1);
    const finished = events.find((event) => event.type === "run_finished");
    const exported = [];
    for await (const line of app.runtime.exportRecords({ since: 0, until: Date.now() + 1 })) exported.push(line);
    const record = exported.find((line) => line.kind === "run" && line.thread_id === threadId);
    return { answer, warned, finished, record, metrics: await metrics.registry.metrics() };
  } finally {
    await app.close();
  }
}

async function served(reply: Reply) {
  const server = await startOpenAIServer([reply, reply, reply]);
  return server;
}

describe("a run whose model call fails explains why", { timeout: 60_000 }, () => {
  it.each([
    [
      "unreachable",
      async () => ({ baseURL: `http://127.0.0.1:${await freePort()}/v1`, close: async () => undefined }),
      "could not be reached",
      "status=none",
    ],
    ["timeout", () => served({ content: "late", delayMs: 3_000 }), "did not answer in time", "status=none"],
    [
      "auth",
      () => served({ status: 401, error: { message: "Incorrect API key" }, headers: { "x-request-id": "req_401" } }),
      "refused the credentials",
      "status=401",
    ],
    [
      "rate_limited",
      () => served({ status: 429, error: { message: "Rate limit reached" }, headers: { "x-request-id": "req_429" } }),
      "rate-limiting",
      "status=429",
    ],
  ] as const)(
    "%s: the answer, one warn line, the run's record, the finish event and the metric name it",
    async (reason, start, words, status) => {
      const server = await start();
      try {
        const host = new URL(server.baseURL).host;
        const run = await failedRun(server.baseURL);
        expect(run.answer).toContain(words);
        expect(run.warned).toHaveLength(1);
        expect(run.warned[0]).toContain(`reason=${reason} host=${host} ${status}`);
        expect(run.warned[0]).not.toContain("sk-secret-key");
        expect(run.warned[0]).not.toContain("/v1");
        const requestId = status === "status=none" ? undefined : `req_${status.slice(7)}`;
        if (requestId) expect(run.warned[0]).toContain(`request_id=${requestId}`);
        else expect(run.warned[0]).not.toContain("request_id=");
        expect(run.record).toMatchObject({ stop_reason: "error" });
        const cause = JSON.parse(String(run.record?.model_error));
        expect(cause).toEqual({
          reason,
          host,
          ...(status === "status=none" ? {} : { status: Number(status.slice(7)) }),
          errorClass: expect.any(String),
          ...(requestId ? { requestId } : {}),
        });
        expect(run.warned[0]).toContain(`error=${cause.errorClass}`);
        expect(JSON.stringify(run.record)).not.toContain("sk-secret-key");
        expect(run.finished).toMatchObject({ stopReason: "error", modelError: reason });
        expect(run.metrics).toContain(`opspilot_model_errors_total{reason="${reason}"} 1`);
      } finally {
        await server.close();
      }
    },
  );
});
