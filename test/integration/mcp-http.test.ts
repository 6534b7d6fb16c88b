import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { argsHash } from "../../src/contracts/formats/canonical.js";
import { answerMessage, callsMessage } from "../fixtures/scripted-model.js";
import { createServer } from "../../src/server/app.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { createMcpToolSource, type McpToolSource } from "../../src/tools/mcp/index.js";
import { createMcpApp, pauseOf, typesOf } from "../fixtures/mcp-app.js";
import { startHttpFixture, type HttpFixture } from "../fixtures/mcp-servers.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-mcp-http-"));
let databases = 0;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Logged outages, so a test can check what the operator reads. */
const logged: string[] = [];
const logger = { error: (message: string) => void logged.push(message) };

async function connect(
  fixture: HttpFixture,
  extra: Record<string, Parameters<typeof createMcpToolSource>[0][string]> = {},
): Promise<McpToolSource> {
  const source = createMcpToolSource(
    { api: { url: fixture.url }, ...extra },
    { timeoutMs: 800, backoffMs: 100, maxBackoffMs: 200, logger },
  );
  cleanups.push(() => source.close());
  await source.start();
  return source;
}

async function fixture(): Promise<HttpFixture> {
  const started = await startHttpFixture();
  cleanups.push(() => started.kill());
  return started;
}

function appOver(source: McpToolSource, script: Parameters<typeof createMcpApp>[0]["script"]) {
  databases += 1;
  // Its tools only answer lookups here: marked as not sending data out, so a tainted thread calls them without a pause.
  const app = createMcpApp({
    sources: [source],
    script,
    dbPath: join(directory, `app-${databases}.sqlite`),
    config: { tools: { "api__*": { egress: false } } },
  });
  cleanups.push(() => app.close());
  return app;
}

const until = async (condition: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

describe("an MCP server over Streamable HTTP", () => {
  it("pauses a tool without annotations for approval, then runs it once", async () => {
    const server = await fixture();
    const source = await connect(server);
    const args = { title: "Disk full on db-1" };
    const app = appOver(source, [
      callsMessage([{ name: "api__open_ticket", args, id: "t1" }]),
      answerMessage("Opened T-1."),
    ]);
    const { threadId, events } = await app.ask("open a ticket for the full disk");
    expect(pauseOf(events)).toMatchObject({
      interruptType: "confirm_risky",
      calls: [{ callId: "t1", tool: "api__open_ticket", args, argsHash: argsHash(args) }],
    });
    expect(server.lines.filter((line) => line.called === "open_ticket")).toEqual([]);

    const resumed = await app.resume(threadId, [{ callId: "t1", action: "approve" }]);
    expect(resumed.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(await app.observation(threadId, "t1")).toEqual({
      ok: true,
      data: { ticket: "T-1", title: "Disk full on db-1" },
    });
    expect(server.lines.filter((line) => line.called === "open_ticket").map((line) => line.title)).toEqual([
      "Disk full on db-1",
    ]);
    expect(app.violations).toEqual([]);
  });

  it("gives an observation when the server is killed mid-call, still answers, and reconnects when it is back", async () => {
    const server = await fixture();
    const source = await connect(server);
    const app = appOver(source, [
      callsMessage([{ name: "api__slow_lookup", args: { key: "db-1" }, id: "s1" }]),
      answerMessage("The lookup service is down; try again later."),
      callsMessage([{ name: "api__ping", args: {}, id: "p1" }]),
      answerMessage("It is back."),
    ]);
    const run = app.ask("look up db-1");
    await server.waitFor((line) => line.called === "slow_lookup");
    await server.kill();
    const { threadId, events } = await run;
    expect(typesOf(events)).toEqual(["run_started", "tool_call", "tool_result", "assistant_message", "run_finished"]);
    expect(events.at(-1)).toMatchObject({ stopReason: "final_answer" });
    // Noticed when the answer stream broke, not at the 800 ms time limit.
    expect((events.find((event) => event.type === "tool_result") as { durationMs: number }).durationMs).toBeLessThan(
      800,
    );
    // The retry dials while the dead process's socket goes away: refused, or reset when it was caught in between.
    const unreachable = /^unreachable \(ECONN(REFUSED|RESET)\)$/;
    expect(await app.observation(threadId, "s1")).toEqual({
      ok: false,
      errorCode: "transient",
      message: expect.stringMatching(/^MCP server "api" is down: unreachable \(ECONN(REFUSED|RESET)\)\.$/),
    });
    expect(source.health()).toEqual([{ server: "api", available: false, reason: expect.stringMatching(unreachable) }]);
    expect(logged).toContain('MCP server "api" is down: connection lost');
    expect(app.violations).toEqual([]);

    // Back on the same port: the background reconnect opens a new session.
    const again = await startHttpFixture(server.port);
    cleanups.push(() => again.kill());
    await until(() => source.health()[0]!.available);
    expect(app.app.registry.isAvailable("api__ping")).toBe(true);
    await collectEvents(await app.app.runtime.startRun({ threadId, message: "is it back?", user: app.user }));
    expect(await app.observation(threadId, "p1")).toEqual({ ok: true, data: "pong" });
    expect(app.violations).toEqual([]);
  });

  it("reports a write cut off by the server's death as outcome_unknown, not as a failure to retry", async () => {
    const server = await fixture();
    // Trusted, so its destructiveHint: false lets the write run without a pause.
    const source = await connect(server, { api: { url: server.url, trustAnnotations: true } });
    const app = appOver(source, [
      callsMessage([{ name: "api__slow_write", args: { key: "replicas" }, id: "w1" }]),
      answerMessage("Not known whether it was written."),
    ]);
    const run = app.ask("set the replicas");
    await server.waitFor((line) => line.called === "slow_write");
    await server.kill();
    const { threadId, events } = await run;
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(await app.observation(threadId, "w1")).toEqual({
      ok: false,
      errorCode: "outcome_unknown",
      message:
        'The connection to MCP server "api" broke during api__slow_write, so it is not known whether it took effect. Check the real state before trying again.',
    });
    expect((await app.app.storage.getEntry(threadId, "w1"))?.state).toBe("finished");
    expect(server.lines.filter((line) => line.called === "slow_write")).toHaveLength(1);
    expect(app.violations).toEqual([]);
  });

  it("times out a hanging tool and sends the server MCP's cancellation", async () => {
    const server = await fixture();
    const source = await connect(server);
    const app = appOver(source, [callsMessage([{ name: "api__hang", args: {}, id: "h1" }]), answerMessage("It hung.")]);
    const { threadId, events } = await app.ask("run the hanging tool");
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({ ok: false, errorCode: "timeout" });
    expect(await app.observation(threadId, "h1")).toEqual({
      ok: false,
      errorCode: "timeout",
      message: "api__hang did not answer within 800 ms.",
    });
    // A timed-out read is retried once: each attempt is cancelled at the server.
    await until(() => server.lines.filter((line) => "cancelled" in line).length === 2);
    const called = server.lines.filter((line) => line.called === "hang").map((line) => line.requestId);
    expect(server.lines.filter((line) => "cancelled" in line)).toEqual(
      called.map((requestId) => ({ cancelled: requestId, reason: "opspilot: the call timed out" })),
    );
    expect(app.violations).toEqual([]);
  });

  it("offers the model a tool the server adds later, after tools/list_changed", async () => {
    const server = await fixture();
    const source = await connect(server);
    const app = appOver(source, [
      callsMessage([{ name: "api__added_later", args: {}, id: "a1" }]),
      answerMessage("It answered late."),
    ]);
    expect(app.app.registry.names()).toEqual([
      "read_result",
      "api__open_ticket",
      "api__slow_lookup",
      "api__ping",
      "api__hang",
      "api__slow_write",
    ]);
    await fetch(`http://127.0.0.1:${server.port}/control/add-tool`, { method: "POST" });
    await until(() => app.app.registry.get("api__added_later") !== undefined);
    const { threadId } = await app.ask("call the new tool");
    expect(app.model.calls[0]!.tools).toContain("api__added_later");
    expect(await app.observation(threadId, "a1")).toEqual({ ok: true, data: "late" });
  });

  it("reports a server that fails at start-up and keeps the others working", async () => {
    const server = await fixture();
    logged.length = 0;
    const source = await connect(server, { broken: { command: join(directory, "no-such-mcp-server"), args: [] } });
    expect(source.health()).toEqual([
      { server: "api", available: true },
      { server: "broken", available: false, reason: "command not found" },
    ]);
    expect(logged).toEqual(['MCP server "broken" is down: command not found']);
    expect(source.tools().map((tool) => tool.name)).toEqual([
      "api__open_ticket",
      "api__slow_lookup",
      "api__ping",
      "api__hang",
      "api__slow_write",
    ]);

    const app = appOver(source, [callsMessage([{ name: "api__ping", args: {}, id: "p1" }])]);
    const http = createServer({ runtime: app.app.runtime, health: app.app.health });
    const health = await http.request("/healthz");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      ok: false,
      status: "degraded",
      servers: [
        { name: "api", status: "up" },
        { name: "broken", status: "down", error: "command not found" },
      ],
    });
    const { threadId, events } = await app.ask("ping the api");
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(await app.observation(threadId, "p1")).toEqual({ ok: true, data: "pong" });
  });
});
