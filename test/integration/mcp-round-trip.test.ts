import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, openApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { checkPairing, pairingHolds } from "../../src/graph/calls/pairing.js";
import type { AgentStateType } from "../../src/graph/state.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { pauseOf, typesOf } from "../fixtures/mcp-app.js";
import { tsEntry } from "../fixtures/ts-children.js";

const SEED = "Check the payment service's recent errors and compare them with the handling advice in the runbooks";
const user = { id: "local", role: "operator" };
/** The entry `npm run mcp` runs, from the sources (the script runs the compiled dist/, which may be stale). */
const MCP_SERVER = tsEntry("src/mcp-server/main.ts");
const directory = mkdtempSync(join(tmpdir(), "opspilot-mcp-round-trip-"));
const configPath = join(directory, "opspilot.config.json");
let viaMcp: App;
let builtIn: App;

beforeAll(async () => {
  // The dataset the `ops` server opens; the process env is not passed to stdio servers.
  const config = {
    demo: false,
    mcpServers: {
      // opspilot's own server: its hints (read-only, risk, openWorldHint: false) are trusted as the built-in policy is.
      ops: {
        command: process.execPath,
        args: MCP_SERVER,
        env: { OPSPILOT_DB: join(directory, "ops.sqlite") },
        trustAnnotations: true,
      },
    },
  };
  writeFileSync(configPath, JSON.stringify(config));
  viaMcp = await openApp({ env: loadEnv({ OPSPILOT_DB: join(directory, "app.sqlite"), OPSPILOT_CONFIG: configPath }) });
  builtIn = createApp({ env: loadEnv({ OPSPILOT_DB: join(directory, "built-in.sqlite") }) });
}, 60_000);
afterAll(async () => {
  await viaMcp.close();
  await builtIn.close();
  rmSync(directory, { recursive: true, force: true });
});

/** Asks the seed question, answers the environment pause with prod, and returns both runs' events. */
async function seedQuestion(app: App) {
  const threadId = await app.runtime.createThread(user);
  const first = await collectEvents(await app.runtime.startRun({ threadId, message: SEED, user }));
  const pause = pauseOf(first);
  const decisions = [{ callId: pause.calls[0]!.callId, action: "approve", params: { environment: "prod" } }];
  const second = await collectEvents(await app.runtime.resumeRun({ threadId, user, resume: { decisions } }));
  const messages = ((await app.graph.getState({ configurable: { thread_id: threadId } })).values as AgentStateType)
    .messages;
  return { first, second, pause, messages };
}

const tools = (events: RunEvent[]) =>
  events.filter((event) => event.type === "tool_call").map((event) => (event as { tool: string }).tool);
const answerOf = (events: RunEvent[]) =>
  (events.filter((event) => event.type === "assistant_message").at(-1) as { content: string }).content;

describe("opspilot's own tools served by the `npm run mcp` server and loaded back through the config", () => {
  it("offers only the ops server's tools (and read_result, which every app has), with the demo tools' policy", () => {
    expect(viaMcp.registry.names()).toEqual([
      "read_result",
      "ops__search_resource",
      "ops__search_logs",
      "ops__search_docs",
      "ops__get_service_metrics",
      "ops__restart_service",
      "ops__rollback_deploy",
    ]);
    const policy = (app: App, name: string) => {
      const tool = app.registry.get(name)!;
      return { readOnly: tool.readOnly, risk: tool.risk, roles: tool.roles, askUser: tool.askUser };
    };
    for (const name of builtIn.registry.names().filter((name) => name !== "read_result"))
      expect(policy(viaMcp, `ops__${name}`)).toEqual(policy(builtIn, name));
  });

  it("answers the seed question with the same pause and the same answer as the built-in tools", async () => {
    const mcp = await seedQuestion(viaMcp);
    const local = await seedQuestion(builtIn);
    expect(typesOf(mcp.first)).toEqual([
      "run_started",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "tool_call",
      "loop_interrupt",
      "run_finished",
    ]);
    expect(tools(mcp.first)).toEqual(["ops__search_resource", "ops__search_docs", "ops__search_logs"]);
    expect(mcp.pause).toMatchObject({
      interruptType: "params_required",
      calls: [
        {
          tool: "ops__search_logs",
          args: { service: "payment-service", level: "ERROR" },
          missing: [{ name: "environment", enum: ["prod", "staging"] }],
        },
      ],
    });
    expect(mcp.pause.calls[0]!.missing).toEqual(local.pause.calls[0]!.missing);
    expect(mcp.second.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    // Log times come from when each dataset was opened; everything else matches to the character.
    const timeless = (text: string) => text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>");
    expect(timeless(answerOf(mcp.second))).toBe(timeless(answerOf(local.second)));
    expect(answerOf(mcp.second).startsWith("[demo model]")).toBe(true);
    for (const fact of ["PAY-5031", "DB_POOL_EXHAUSTED", "RB-003"]) expect(answerOf(mcp.second)).toContain(fact);
    expect(pairingHolds(checkPairing(mcp.messages))).toBe(true);
  });
});

describe("the `npm run mcp` server on its own", () => {
  it("writes nothing but protocol messages to stdout, and exits when the client closes its stdin", async () => {
    const child = spawn(process.execPath, MCP_SERVER, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, OPSPILOT_DB: join(directory, "alone.sqlite") },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
      // Each answer lets the next request go, as a client would.
      if (stdout.split("\n").length === 2)
        send({ jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", id: 2, method: "tools/list" });
      if (stdout.split("\n").length === 3) child.stdin.end();
    });
    child.stderr.resume();
    const send = (...messages: unknown[]) =>
      child.stdin.write(messages.map((message) => JSON.stringify(message) + "\n").join(""));
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
    });
    const exitCode = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    const lines = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result: Record<string, unknown> });
    expect(exitCode).toBe(0);
    expect(lines.map((line) => [line.jsonrpc, line.id])).toEqual([
      ["2.0", 1],
      ["2.0", 2],
    ]);
    expect(lines[0]!.result).toMatchObject({ serverInfo: { name: "opspilot" }, capabilities: { tools: {} } });
    expect(
      (lines[1]!.result.tools as Array<{ name: string; annotations: unknown }>).map((tool) => [
        tool.name,
        tool.annotations,
      ]),
    ).toEqual([
      ["search_resource", { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
      ["search_logs", { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
      ["search_docs", { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
      [
        "get_service_metrics",
        { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      ],
      ["restart_service", { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }],
      ["rollback_deploy", { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }],
    ]);
  }, 30_000);
});
