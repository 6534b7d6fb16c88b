import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../fixtures/cli-process.js";

// Compiled beside dist/ (one level under the root, as dist/ is), never into it: dist/ may be
// stale while the sources change, and `npm start` must not see a half-written build.
const outDir = join(REPO_ROOT, `.build-test-${process.pid}`);
const data = mkdtempSync(join(tmpdir(), "opspilot-build-"));

/** The environment `npm run ask` / `npm start` would see on a machine with no .env: the demo model. */
function plainEnv(name: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: "1",
    OPSPILOT_MODEL: "demo",
    OPSPILOT_DB: join(data, `${name}.sqlite`),
  };
}

beforeAll(() => {
  // tsc writes the JavaScript even when it reports a type error elsewhere; typechecking is `npm run typecheck`'s job.
  spawnSync(
    process.execPath,
    [join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json", "--outDir", outDir],
    {
      cwd: REPO_ROOT,
      encoding: "utf8",
    },
  );
}, 180_000);

afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});

describe("the compiled output (node, no tsx)", () => {
  it("holds every entry point package.json runs", () => {
    for (const entry of ["main.js", "cli/main.js", "cli/prune-main.js", "cli/doctor-main.js", "mcp-server/main.js"])
      expect(existsSync(join(outDir, entry)), entry).toBe(true);
  });

  it("prints the usage for --help and exits 0", () => {
    const result = spawnSync(process.execPath, [join(outDir, "cli/main.js"), "--help"], {
      cwd: REPO_ROOT,
      env: plainEnv("help"),
      encoding: "utf8",
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("npm run ask");
    expect(existsSync(join(data, "help.sqlite"))).toBe(false);
  });

  it("answers a demo question with `ask`, citing the dataset's error code and runbook", () => {
    const result = spawnSync(
      process.execPath,
      [
        join(outDir, "cli/main.js"),
        "ask",
        "Check the payment service's recent errors in prod and compare them with the runbooks",
      ],
      { cwd: REPO_ROOT, env: plainEnv("ask"), encoding: "utf8", timeout: 60_000 },
    );
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("PAY-5031");
    expect(result.stdout).toContain("RB-003");
    expect(result.stdout).toMatch(/■ stop: final_answer · 3 steps · /);
  });

  it("serves the tools over MCP on stdio (`npm run mcp`) and exits when its stdin closes", async () => {
    const child = spawn(process.execPath, [join(outDir, "mcp-server/main.js")], {
      cwd: REPO_ROOT,
      env: plainEnv("mcp"),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.includes("\n")) child.stdin.end();
    });
    child.stderr.resume();
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
    };
    child.stdin.write(JSON.stringify(initialize) + "\n");
    const exitCode = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(exitCode).toBe(0);
    expect(JSON.parse(stdout.trim())).toMatchObject({ id: 1, result: { serverInfo: { name: "opspilot" } } });
  });

  it("starts the server, which answers /healthz and serves the page and its vendored libraries", async () => {
    const child = spawn(process.execPath, [join(outDir, "main.js")], {
      cwd: REPO_ROOT,
      env: { ...plainEnv("server"), HOST: "127.0.0.1", PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line within 30 s; stderr: ${stderr}`)), 30_000);
        child.once("exit", (code) => reject(new Error(`the server exited with ${code}: ${stderr}`)));
        createInterface({ input: child.stdout }).on("line", (line) => {
          const found = /listening on (http:\/\/\S+)/.exec(line)?.[1];
          if (found) {
            clearTimeout(timer);
            resolve(found);
          }
        });
      });
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true });
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<html");
      // The libraries the page and the dashboard load are served from node_modules, found from the compiled module.
      for (const vendored of ["/vendor/chart.umd.js", "/vendor/marked.js", "/vendor/purify.js"]) {
        const library = await fetch(`${url}${vendored}`);
        expect(library.status, vendored).toBe(200);
        expect((await library.text()).length, vendored).toBeGreaterThan(10_000);
      }
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
    }
  }, 60_000);
});
