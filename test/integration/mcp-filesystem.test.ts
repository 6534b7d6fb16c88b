import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openApp } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { parseConfig } from "../../src/config/file.js";
import { argsHash } from "../../src/contracts/formats/canonical.js";
import { checkPairing, pairingHolds } from "../../src/graph/calls/pairing.js";
import type { AgentStateType } from "../../src/graph/state.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { createMcpToolSource, type McpToolSource } from "../../src/tools/mcp/index.js";
import { createMcpApp, observationOf, pauseOf, tracedSource, typesOf } from "../fixtures/mcp-app.js";
import type { McpKillPoint } from "../fixtures/mcp-child-run.js";
import { filesystemServer } from "../fixtures/mcp-servers.js";
import { tsEntry } from "../fixtures/ts-children.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-mcp-fs-"));
const workspace = join(directory, "files");
mkdirSync(workspace);
writeFileSync(join(workspace, "notes.txt"), "disk is 91% full\n");

// Trusted, so its annotations decide each tool's policy (mcp-trust.test.ts covers the untrusted default).
const config = parseConfig(
  { demo: false, mcpServers: { fs: { ...filesystemServer(workspace), trustAnnotations: true } } },
  {},
);
let source: McpToolSource;
let databases = 0;
const apps: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  source = createMcpToolSource(config.mcpServers);
  await source.start();
});
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});
afterAll(async () => {
  await source.close();
  rmSync(directory, { recursive: true, force: true });
});

function appWith(script: Parameters<typeof createMcpApp>[0]["script"], trace: string[] = []) {
  databases += 1;
  const app = createMcpApp({
    sources: [tracedSource(source, trace)],
    script,
    dbPath: join(directory, `app-${databases}.sqlite`),
  });
  apps.push(app);
  return app;
}

describe("the real MCP filesystem server over stdio", () => {
  it("takes each tool's policy from the annotations of a trusted server", () => {
    const policy = Object.fromEntries(
      source
        .tools()
        .filter((tool) => ["fs__list_directory", "fs__create_directory", "fs__write_file"].includes(tool.name))
        .map((tool) => [tool.name, { readOnly: tool.readOnly, risk: tool.risk, idempotent: tool.idempotent }]),
    );
    expect(policy).toEqual({
      fs__list_directory: { readOnly: true, risk: "low", idempotent: false },
      fs__create_directory: { readOnly: false, risk: "low", idempotent: true },
      fs__write_file: { readOnly: false, risk: "high", idempotent: true },
    });
    expect(source.health()).toEqual([{ server: "fs", available: true }]);
  });

  it("runs list_directory and read_text_file proposed together in parallel", async () => {
    const trace: string[] = [];
    const app = appWith(
      [
        callsMessage([
          { name: "fs__list_directory", args: { path: workspace }, id: "l1" },
          { name: "fs__read_text_file", args: { path: join(workspace, "notes.txt") }, id: "r1" },
        ]),
        answerMessage("The disk is 91% full."),
      ],
      trace,
    );
    const { threadId, events } = await app.ask("what do my notes say?");
    expect(typesOf(events)).toEqual([
      "run_started",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "assistant_message",
      "run_finished",
    ]);
    // Both calls were sent before either answered.
    expect(trace.slice(0, 2).sort()).toEqual(["start fs__list_directory", "start fs__read_text_file"]);
    expect(trace.slice(2).sort()).toEqual(["end fs__list_directory", "end fs__read_text_file"]);
    expect(await app.observation(threadId, "l1")).toEqual({ ok: true, data: { content: "[FILE] notes.txt" } });
    expect(await app.observation(threadId, "r1")).toEqual({ ok: true, data: { content: "disk is 91% full\n" } });
    expect(app.violations).toEqual([]);
  });

  it("runs create_directory, a non-destructive write, without a pause", async () => {
    const reports = join(workspace, "reports");
    const app = appWith([
      callsMessage([{ name: "fs__create_directory", args: { path: reports }, id: "c1" }]),
      answerMessage("Created."),
    ]);
    const { threadId, events } = await app.ask("make a reports folder");
    expect(typesOf(events)).toEqual(["run_started", "tool_call", "tool_result", "assistant_message", "run_finished"]);
    expect(await app.observation(threadId, "c1")).toEqual({
      ok: true,
      data: { content: `Successfully created directory ${reports}` },
    });
    expect(existsSync(reports)).toBe(true);
    expect(app.violations).toEqual([]);
  });

  it("pauses write_file as confirm_risky with its frozen args, and a rejection writes nothing", async () => {
    const target = join(workspace, "rejected.txt");
    const args = { path: target, content: "should never land" };
    const app = appWith([callsMessage([{ name: "fs__write_file", args, id: "w1" }]), answerMessage("Not written.")]);
    const { threadId, events } = await app.ask("write the file");
    expect(pauseOf(events)).toMatchObject({
      interruptType: "confirm_risky",
      calls: [{ callId: "w1", tool: "fs__write_file", args, argsHash: argsHash(args) }],
    });
    const resumed = await app.resume(threadId, [{ callId: "w1", action: "reject", message: "not now" }]);
    expect(resumed.find((event) => event.type === "tool_result")).toMatchObject({
      tool: "fs__write_file",
      ok: false,
      errorCode: "rejected_by_user",
    });
    expect(resumed.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(existsSync(target)).toBe(false);
    expect(app.violations).toEqual([]);
  });

  it("writes the approved file exactly once, with the frozen args", async () => {
    const target = join(workspace, "approved.txt");
    const args = { path: target, content: "disk report: 91%" };
    const trace: string[] = [];
    const app = appWith([callsMessage([{ name: "fs__write_file", args, id: "w1" }]), answerMessage("Saved.")], trace);
    const { threadId, events } = await app.ask("write the file");
    const pause = pauseOf(events);
    const resumed = await app.resume(threadId, [
      { callId: "w1", action: "approve", argsHash: pause.calls[0]!.argsHash },
    ]);
    expect(resumed.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(await app.observation(threadId, "w1")).toEqual({
      ok: true,
      data: { content: `Successfully wrote to ${target}` },
    });
    expect(readFileSync(target, "utf8")).toBe("disk report: 91%");
    expect(trace).toEqual(["start fs__write_file", "end fs__write_file"]);
    expect((await app.app.storage.getEntry(threadId, "w1"))?.state).toBe("finished");
    expect(app.violations).toEqual([]);
  });
});

describe("an approved MCP write when the process is killed", () => {
  const child = (mode: string, dbPath: string, threadId: string, killPoint: McpKillPoint = "none") =>
    spawnSync(
      process.execPath,
      [...tsEntry("test/fixtures/mcp-child-run.ts"), mode, dbPath, workspace, threadId, killPoint],
      { encoding: "utf8", timeout: 60_000 },
    );

  it.each([
    // The result was journaled: recovery reuses it and never sends the write again.
    [
      "after-journal-finish",
      { ok: true, data: { content: `Successfully wrote to ${join(workspace, "report.txt")}` } },
      "edited by hand",
    ],
    // The write may have been sent: recovery says so and does not send it again.
    ["after-journal-start", { ok: false, errorCode: "outcome_unknown" }, undefined],
  ] as const)("is applied at most once after a kill at %s", async (killPoint, observation, fileAfter) => {
    const target = join(workspace, "report.txt");
    rmSync(target, { force: true });
    const dbPath = join(directory, `crash-${killPoint}.sqlite`);
    const app = await openApp({
      env: loadEnv({ OPSPILOT_DB: dbPath }),
      config,
      model: new ScriptedChatModel({
        script: [],
        onExhausted: "answer",
        assertCall: (call) => {
          if (!pairingHolds(checkPairing(call.messages))) throw new Error("pairing violated before a model call");
        },
      }),
    });
    apps.push(app);
    const user = { id: "local", role: "operator" };
    const threadId = await app.runtime.createThread(user);

    const paused = child("pause-write", dbPath, threadId);
    expect(paused.status).toBe(0);
    expect(JSON.parse(paused.stdout.trim()).events.at(-1)).toMatchObject({ stopReason: "interrupted" });
    const killed = child("resume-write", dbPath, threadId, killPoint);
    expect(killed.signal).toBe("SIGKILL");
    // A write sent again on recovery would put "v1" back.
    if (existsSync(target)) writeFileSync(target, "edited by hand");

    expect((await app.runtime.getThread(threadId, user)).unfinished).toBe(true);
    const recovered = await collectEvents(await app.runtime.recoverRun(threadId, user));
    expect(recovered.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    const messages = ((await app.graph.getState({ configurable: { thread_id: threadId } })).values as AgentStateType)
      .messages;
    expect(observationOf(messages, "w1")).toMatchObject(observation);
    expect(existsSync(target) ? readFileSync(target, "utf8") : undefined).toBe(fileAfter);
    expect(pairingHolds(checkPairing(messages))).toBe(true);
  });
});
