import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { McpServerConfig } from "../../src/config/schema.js";
import { createServer } from "../../src/server/app.js";
import { createMcpToolSource } from "../../src/tools/mcp/index.js";
import { createMcpApp } from "../fixtures/mcp-app.js";
import { filesystemServer, startHttpFixture, type HttpFixture } from "../fixtures/mcp-servers.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-mcp-ping-"));
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const PING_INTERVAL_MS = 1_000;

/** An app over one MCP server, its `/healthz`, and every line it logged (`error` and `info` alike). */
async function watched(name: string, config: McpServerConfig) {
  const logged: string[] = [];
  const logger = {
    error: (message: string) => void logged.push(message),
    info: (message: string) => void logged.push(message),
  };
  const source = createMcpToolSource({ [name]: config }, { backoffMs: 100, maxBackoffMs: 200, logger });
  cleanups.push(() => source.close());
  await source.start();
  const app = createMcpApp({ sources: [source], script: [], dbPath: join(directory, `${name}.sqlite`) });
  cleanups.push(() => app.close());
  const http = createServer({ runtime: app.app.runtime, health: app.app.health });
  const health = async () => (await http.request("/healthz")).json() as Promise<Record<string, unknown>>;
  return { app: app.app, logged, health };
}

/** Polls until `check` holds; returns how long it took. */
async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

async function httpFixture(port?: number): Promise<HttpFixture> {
  const started = await startHttpFixture(port);
  cleanups.push(() => started.kill());
  return started;
}

describe("the health of MCP servers without any tool call", () => {
  it("marks an HTTP server that died down within a few pings, and up again once it is back on its port", async () => {
    const server = await httpFixture();
    const { app, logged, health } = await watched("api", { url: server.url, pingIntervalMs: PING_INTERVAL_MS });
    expect(await health()).toEqual({ ok: true, status: "ok", servers: [{ name: "api", status: "up" }] });

    await server.kill();
    const noticedAfter = await until(async () => (await health()).ok === false, 4 * PING_INTERVAL_MS);
    expect(noticedAfter).toBeLessThan(3 * PING_INTERVAL_MS);
    expect(await health()).toEqual({
      ok: false,
      status: "degraded",
      servers: [{ name: "api", status: "down", error: expect.stringMatching(/unreachable \(ECONN(REFUSED|RESET)\)$/) }],
    });
    expect(app.registry.isAvailable("api__ping")).toBe(false);
    expect(server.lines.filter((line) => "called" in line)).toEqual([]);

    const again = await httpFixture(server.port);
    await until(async () => (await health()).ok === true, 10_000);
    expect(await health()).toEqual({ ok: true, status: "ok", servers: [{ name: "api", status: "up" }] });
    expect(app.registry.isAvailable("api__ping")).toBe(true);
    // Still pinged after it came back: a second death is noticed the same way.
    await again.kill();
    await until(async () => (await health()).ok === false, 4 * PING_INTERVAL_MS);

    const [down, up, downAgain, ...rest] = logged;
    expect(down).toMatch(/^MCP server "api" is down: ping failed: unreachable \(ECONN(REFUSED|RESET)\)$/);
    expect(up).toMatch(/^MCP server "api" is back up after \d+\.\d s$/);
    expect(downAgain).toMatch(/^MCP server "api" is down: ping failed: /);
    expect(rest).toEqual([]);
  }, 30_000);

  it("logs a stdio server's death once and its return once, as its transport sees the child exit", async () => {
    const marker = join(directory, "stdio-workspace");
    mkdirSync(marker);
    const { logged, health } = await watched("fs", filesystemServer(marker));
    expect(await health()).toEqual({ ok: true, status: "ok", servers: [{ name: "fs", status: "up" }] });

    // The server is our child: found by the workspace it was given, which no other process has.
    const children = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" });
    const pid = children
      .split("\n")
      .find((line) => line.includes(marker))
      ?.trim()
      .split(/\s+/)[0];
    expect(pid).toMatch(/^\d+$/);
    process.kill(Number(pid), "SIGKILL");

    await until(() => logged.length === 2, 10_000);
    expect(await health()).toEqual({ ok: true, status: "ok", servers: [{ name: "fs", status: "up" }] });
    expect(logged).toEqual([
      'MCP server "fs" is down: connection lost',
      expect.stringMatching(/^MCP server "fs" is back up after \d+\.\d s$/),
    ]);
  }, 30_000);
});
