import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";

const user = { id: "local", role: "operator" };
let directory: string;
let app: App | undefined;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "opspilot-runbooks-app-"));
  await mkdir(join(directory, "runbooks/payments"), { recursive: true });
  await writeFile(
    join(directory, "runbooks/payments/db-pool.md"),
    "---\ntitle: Payment DB pool exhaustion\ntags: [PAY-5031]\n---\n## Mitigation\n\nPause the reconciliation batch job.\n",
  );
});

afterEach(async () => {
  await app?.close();
  app = undefined;
  await rm(directory, { recursive: true, force: true });
});

/** An app from a real config file naming the runbooks folder, its model asking `search_docs` once. */
async function openWithConfig(config: Record<string, unknown>): Promise<App> {
  const configPath = join(directory, "opspilot.config.json");
  await writeFile(configPath, JSON.stringify({ runbooks: join(directory, "runbooks"), ...config }));
  const model = new ScriptedChatModel({
    script: [
      callsMessage([{ name: "search_docs", args: { query: "PAY-5031 pool", limit: 2 }, id: "d1" }]),
      answerMessage("See payments/db-pool.md, Mitigation."),
    ],
  });
  return openApp({
    env: loadEnv({ OPSPILOT_DB: join(directory, "app.sqlite"), OPSPILOT_CONFIG: configPath }),
    model,
  });
}

/** The `search_docs` results the model saw. */
async function searchResults(opened: App): Promise<Array<Record<string, unknown>>> {
  const threadId = await opened.runtime.createThread(user);
  const events = await collectEvents(await opened.runtime.startRun({ threadId, message: "PAY-5031?", user }));
  const result = events.find((event) => event.type === "tool_result") as RunEvent & { tool: string };
  expect(result.tool).toBe("search_docs");
  const messages = (await opened.graph.getState({ configurable: { thread_id: threadId } })).values.messages as Array<{
    content: unknown;
  }>;
  return (JSON.parse(String(messages[2]!.content)) as { data: { results: Array<Record<string, unknown>> } }).data
    .results;
}

describe("a runbooks folder named in the config file", () => {
  it("backs search_docs alone when the demo is off", async () => {
    app = await openWithConfig({ demo: false });
    expect(app.registry.names()).toEqual(["search_docs", "read_result"]);
    const results = await searchResults(app);
    expect(results.map((hit) => [hit.path, hit.heading])).toEqual([["payments/db-pool.md", "Mitigation"]]);
  });

  it("is searched beside the demo runbooks when the demo is on", async () => {
    app = await openWithConfig({ demo: true });
    expect(app.registry.names()).toContain("restart_service");
    const results = await searchResults(app);
    expect(results.map((hit) => hit.id)).toEqual(["payments/db-pool.md#mitigation", "RB-003"]);
  });
});
