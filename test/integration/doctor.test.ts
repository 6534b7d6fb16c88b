import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp, openApp } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { readConfigFile } from "../../src/config/file.js";
import { runCliProcess } from "../fixtures/cli-process.js";
import { filesystemServer } from "../fixtures/mcp-servers.js";
import { freePort } from "../fixtures/ports.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-doctor-"));
const workspace = join(directory, "files");
mkdirSync(workspace);
writeFileSync(join(workspace, "notes.txt"), "disk is 91% full\n");
let files = 0;

afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Writes a config file and returns its path. */
function configFile(content: unknown): string {
  files += 1;
  const path = join(directory, `config-${files}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

/** Runs `npm run doctor`'s entry point with `OPSPILOT_CONFIG` (when given) and a fresh SQLite file. */
function doctor(config: string | undefined, env: Record<string, string> = {}) {
  files += 1;
  return runCliProcess([], {
    entry: "src/cli/doctor-main.ts",
    db: join(directory, `doctor-${files}.sqlite`),
    env: { OPSPILOT_CONFIG: config ?? "", DATABASE_URL: "", OPENAI_API_KEY: "", ...env },
  });
}

/** The lines after "N problem(s):", without their bullets. */
function problemsOf(stdout: string): string[] {
  const lines = stdout.trimEnd().split("\n");
  const start = lines.findIndex((line) => /^\d+ problems?:$/.test(line));
  return start < 0 ? [] : lines.slice(start + 1).map((line) => line.replace(/^ {2}- /, ""));
}

const TYPO = "tools.restart_servce matches no tool, so it changes nothing; did you mean restart_service?";

describe("npm run doctor", { timeout: 60_000 }, () => {
  it("passes the demo with a filesystem MCP server, listing the demo tools and the server's tools", async () => {
    const config = configFile({
      mcpServers: { fs: filesystemServer(workspace) },
      tools: { "fs__*": { timeoutMs: 5_000 } },
    });
    const result = await doctor(config);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines).toContain(`config    ${config}: 1 MCP server, 1 tool policy key`);
    expect(lines).toContain("model     demo (offline demo model)");
    expect(lines.find((line) => line.startsWith("mcp fs"))).toMatch(/^mcp fs {4}up, \d+ tools$/);
    for (const tool of ["search_logs", "restart_service", "read_result", "fs__read_text_file", "fs__write_file"])
      expect(lines.some((line) => line.startsWith(`${tool} `))).toBe(true);
    expect(lines.find((line) => line.startsWith("fs__read_text_file "))).toMatch(/ 5 s .* mcp:fs /);
    expect(lines.at(-2)).toMatch(/^All good: \d+ tools, 1 MCP server up, database ready\.$/);
    expect(problemsOf(result.stdout)).toEqual([]);
  });

  it("fails on a tools key that matches no tool and suggests the tool it was meant for", async () => {
    const result = await doctor(configFile({ tools: { restart_servce: { enabled: false } } }));
    expect(result.code).toBe(1);
    expect(problemsOf(result.stdout)).toEqual([TYPO]);
    expect(result.stdout).toContain("\n1 problem:\n");
    // The typo left restart_service as it was.
    expect(result.stdout).toMatch(/\nrestart_service +write +high /);
  });

  it("names each dead MCP server and why, within the bounded wait, and leaves its keys unverified", async () => {
    const port = await freePort();
    const config = configFile({
      demo: false,
      mcpServers: {
        gone: { command: process.execPath, args: ["-e", "process.exit(3)"] },
        web: { url: `http://127.0.0.1:${port}/mcp` },
      },
      tools: { "gone__*": { risk: "high" }, web__restart: { enabled: false } },
    });
    const started = Date.now();
    const result = await doctor(config);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("\nmcp gone  down: exited during the handshake\n");
    expect(result.stdout).toContain('\ntools."gone__*" is not checked: MCP server gone is not up\n');
    expect(result.stdout).toContain("\ntools.web__restart is not checked: MCP server web is not up\n");
    expect(problemsOf(result.stdout)).toEqual([
      "MCP server gone is down: exited during the handshake",
      "MCP server web is down: unreachable (ECONNREFUSED)",
    ]);
  });

  it("reports a database that is not SQLite and incomplete model settings, one line each", async () => {
    const notSqlite = join(directory, "not-a-database.sqlite");
    writeFileSync(notSqlite, "plain text, not SQLite ".repeat(100));
    const result = await doctor(undefined, { OPSPILOT_DB: notSqlite, OPSPILOT_MODEL: "openai:gpt-4o-mini" });
    expect(result.code).toBe(1);
    expect(problemsOf(result.stdout)).toEqual([
      "OPENAI_API_KEY is required for https://api.openai.com; set it, or point OPENAI_BASE_URL at a local endpoint such as http://127.0.0.1:11434/v1 (Ollama).",
      `OPSPILOT_DB: Cannot open the SQLite database ${notSqlite}: it is not a SQLite database (file is not a database)`,
    ]);
  });

  it("refuses a config file it cannot read in one line, exit 2", async () => {
    const broken = join(directory, "broken.json");
    writeFileSync(broken, '{ "tools": { "restart_service": { "risk": "medium" } } }');
    const result = await doctor(broken);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `opspilot doctor: ${broken}: tools.restart_service.risk: must be one of "low", "high"\n`,
    );
  });
});

describe("the start-up warning of npm start", { timeout: 60_000 }, () => {
  it("logs the same line for a tools key that matches no tool", async () => {
    const logged: string[] = [];
    const config = readConfigFile(configFile({ tools: { restart_servce: { enabled: false } } }), {});
    const app = await openApp({
      env: loadEnv({ OPSPILOT_DB: join(directory, "start.sqlite") }),
      config,
      logger: { error: (message) => void logged.push(message) },
    });
    await app.close();
    expect(logged).toEqual([`Config file: ${TYPO}`]);
  });

  it("checks a key of an MCP server that is still connecting once the server has listed its tools", async () => {
    const logged: string[] = [];
    const config = readConfigFile(
      configFile({
        demo: false,
        mcpServers: { fs: filesystemServer(workspace) },
        tools: { fs__read_fle: { risk: "high" }, "fs__*": { timeoutMs: 5_000 } },
      }),
      {},
    );
    const app = createApp({
      env: loadEnv({ OPSPILOT_DB: join(directory, "background.sqlite") }),
      config,
      logger: { error: (message) => void logged.push(message) },
    });
    try {
      expect(logged).toEqual([]);
      const started = Date.now();
      while (logged.length === 0 && Date.now() - started < 20_000) await new Promise((wake) => setTimeout(wake, 50));
      expect(app.health().status).toBe("ok");
      expect(logged).toEqual([
        "Config file: tools.fs__read_fle matches no tool, so it changes nothing; did you mean fs__read_file?",
      ]);
    } finally {
      await app.close();
    }
  });
});
