import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { parseCliArgs } from "../../src/cli/args.js";
import type { RunUser } from "../../src/contracts/user.js";
import { runCliProcess, type CliResult } from "../fixtures/cli-process.js";
import { filesystemServer } from "../fixtures/mcp-servers.js";

const OPERATOR: RunUser = { id: "local", role: "operator" };
const METRICS = { service: "payment-service", environment: "prod" };
const RESTART = { service: "payment-service", environment: "prod", reason: "PAY-5031 storm" };

const threadOf = (stdout: string) => /thread: ([0-9a-f-]{36})/.exec(stdout)?.[1] ?? "";
const lines = (text: string) => text.split("\n").filter((line) => line.length > 0);

/** The printed answer that approves, as the argv after `npm run ask --`, unquoted as a POSIX shell would. */
function printedApproval(stdout: string): string[] {
  const line = lines(stdout).find((text) => text.startsWith("  npm run ask -- ") && text.includes(" --approve"));
  expect(line, `no printed --approve command in:\n${stdout}`).toBeDefined();
  const command = line!.trim().split("   ")[0]!;
  const words = [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((match) =>
    match[1] !== undefined ? match[1].replaceAll(`'\\''`, "'") : match[2]!,
  );
  expect(words.slice(0, 4)).toEqual(["npm", "run", "ask", "--"]);
  return words.slice(4);
}

/** A refusal: exactly one line on stderr, nothing on stdout, exit 2. */
function expectOneLineRefusal(result: CliResult, line: string): void {
  expect(result.stdout).toBe("");
  expect(result.stderr).toBe(line + "\n");
  expect(result.code).toBe(2);
}

describe("ask --call: one tool through the real loop, no model", { timeout: 120_000 }, () => {
  let directory: string;
  let db: string;

  const count = (action: "restart" | "rollback"): number => {
    const connection = new Database(db, { readonly: true });
    try {
      const row = connection.prepare("SELECT COUNT(*) AS count FROM ops_actions WHERE action = ?").get(action) as {
        count: number;
      };
      return row.count;
    } finally {
      connection.close();
    }
  };

  /** Reads the app's state from the same file, in this process. */
  const withApp = async <T>(read: (app: ReturnType<typeof createApp>) => Promise<T>): Promise<T> => {
    const app = createApp({ dbPath: db });
    try {
      return await read(app);
    } finally {
      await app.close();
    }
  };
  const threadCount = (user: RunUser = OPERATOR) =>
    withApp(async (app) => (await app.runtime.listThreads(user, { limit: 100 })).length);

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "opspilot-cli-call-"));
    db = join(directory, "call.sqlite");
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("prints a read's observation, exactly the tool message the model would read, and records the call", async () => {
    const result = await runCliProcess(["ask", "--call", "get_service_metrics", JSON.stringify(METRICS)], { db });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const threadId = threadOf(result.stdout);
    expect(result.stdout).toContain(`→ [1] get_service_metrics ${JSON.stringify(METRICS)}`);
    expect(result.stdout).toMatch(/✓ \[1\] get_service_metrics · /);
    expect(result.stdout).toMatch(/■ stop: final_answer · 2 steps · (\d+ ms|\d+\.\d s) · 0 tokens\n/);

    const view = await withApp((app) => app.runtime.getThread(threadId, OPERATOR));
    const [asked, proposed, observed, answer] = view.messages;
    expect(asked).toMatchObject({ role: "user", content: `/call get_service_metrics ${JSON.stringify(METRICS)}` });
    expect(proposed).toMatchObject({ role: "assistant", toolCalls: [{ tool: "get_service_metrics", args: METRICS }] });
    expect(observed).toMatchObject({ role: "tool", tool: "get_service_metrics", ok: true });
    expect(answer).toMatchObject({ role: "assistant", content: observed!.content });
    // The answer block on stdout is that same JSON, on its own line.
    expect(lines(result.stdout)).toContain(observed!.content);
    const observation = JSON.parse(observed!.content) as { ok: boolean; data: Record<string, unknown> };
    expect(observation).toMatchObject({ ok: true, data: { service: "payment-service", environment: "prod" } });
    expect(observation.data.metrics).toMatchObject({ errorRatePercent: expect.any(Number) });

    const records = await withApp((app) => app.runtime.getRecords(threadId, OPERATOR, { limit: 10 }));
    expect(records.runs).toMatchObject([{ stop_reason: "final_answer", user_id: "local" }]);
    expect(records.toolCalls).toMatchObject([{ tool: "get_service_metrics", outcome: "ok" }]);
  });

  it("pauses a write for approval, and the printed --approve command runs it once without a model", async () => {
    const before = count("restart");
    const asked = await runCliProcess(["ask", "--call", "restart_service", JSON.stringify(RESTART)], { db });
    expect(asked.stderr).toBe("");
    expect(asked.code).toBe(0);
    const threadId = threadOf(asked.stdout);
    expect(asked.stdout).toContain(
      "⚠ Waiting for your approval of a high-risk action (confirm_risky): restart_service is a high-risk action; approve, edit or reject it.",
    );
    expect(asked.stdout).toContain("■ stop: interrupted · 1 step");
    expect(asked.stdout).toContain(`  npm run ask -- --thread ${threadId} --no-model --reject "reason"`);
    expect(count("restart")).toBe(before);

    const argv = printedApproval(asked.stdout);
    expect(argv).toEqual(["--thread", threadId, "--no-model", "--approve"]);
    const approved = await runCliProcess(["ask", ...argv], {
      db,
      // No model is built: a model setting that could not start one changes nothing.
      env: { OPSPILOT_MODEL: "openai:gpt-4o-mini", OPENAI_API_KEY: "" },
    });
    expect(approved.stderr).toBe("");
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/✓ \[1\] restart_service · restart payment-service prod/);
    expect(count("restart")).toBe(before + 1);
    const view = await withApp((app) => app.runtime.getThread(threadId, OPERATOR));
    expect(view.status).toBe("idle");
    const observed = view.messages.find((message) => message.role === "tool")!;
    expect(view.messages.at(-1)).toMatchObject({ role: "assistant", content: observed.content });
    expect(JSON.parse(observed.content)).toMatchObject({
      ok: true,
      data: { action: "restart", service: "payment-service", environment: "prod", reason: "PAY-5031 storm" },
    });

    const again = await runCliProcess(["ask", ...argv], { db });
    expectOneLineRefusal(again, `opspilot: Thread ${threadId} is not waiting for input. [not_paused]`);
    expect(count("restart")).toBe(before + 1);
  });

  it("says a field given with --param was filled by the user, and leaves no thread waiting once answered", async () => {
    const asked = await runCliProcess(
      ["ask", "--call", "search_logs", JSON.stringify({ service: "payment-service" })],
      {
        db,
      },
    );
    expect(asked.code).toBe(0);
    const threadId = threadOf(asked.stdout);
    const waiting = () =>
      withApp(async (app) =>
        (await app.runtime.listThreads(OPERATOR, { limit: 100 })).find((t) => t.threadId === threadId),
      );
    expect(await waiting()).toMatchObject({ status: "interrupted", waitingForYou: true });
    const filled = await runCliProcess(["ask", "--thread", threadId, "--no-model", "--param", "environment=prod"], {
      db,
    });
    expect(filled.stderr).toBe("");
    expect(filled.stdout).toMatch(/✓ \[1\] search_logs · .* · filled by \S+ \(\d+ ms\)/);
    expect(filled.stdout).not.toContain("approved by");
    expect(await waiting()).toMatchObject({ status: "idle", waitingForYou: false });
  });

  it("runs a write at once with --approve as an operator, exactly once, journaled", async () => {
    const before = count("restart");
    const result = await runCliProcess(["ask", "--call", "restart_service", JSON.stringify(RESTART), "--approve"], {
      db,
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("(confirm_risky): restart_service is a high-risk action");
    expect(result.stdout).not.toContain("To answer, run one of:");
    expect(result.stdout).toMatch(/✓ \[1\] restart_service · restart payment-service prod/);
    expect(result.stdout).toMatch(/■ stop: final_answer · 2 steps/);
    expect(count("restart")).toBe(before + 1);
    const threadId = threadOf(result.stdout);
    const records = await withApp((app) => app.runtime.getRecords(threadId, OPERATOR, { limit: 10 }));
    expect(records.decisions).toMatchObject([{ action: "approve", user_id: "local" }]);
    expect(records.toolCalls).toMatchObject([{ tool: "restart_service", outcome: "ok" }]);
    const connection = new Database(db, { readonly: true });
    try {
      const journal = connection.prepare("SELECT tool, state FROM opspilot_journal WHERE thread_id = ?").all(threadId);
      expect(journal).toEqual([{ tool: "restart_service", state: "finished" }]);
    } finally {
      connection.close();
    }
  });

  it("refuses a viewer's --approve of a write with the permission message and exit 2, running nothing", async () => {
    const before = count("restart");
    const result = await runCliProcess(
      ["ask", "--role", "viewer", "--call", "restart_service", JSON.stringify(RESTART), "--approve"],
      { db },
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(
      "✗ [1] restart_service permission_denied · permission_denied: Your role (viewer) is not allowed to use restart_service.",
    );
    expect(result.stdout).not.toContain("Waiting for");
    expect(count("restart")).toBe(before);
    const threadId = threadOf(result.stdout);
    const viewer = { id: "local", role: "viewer" };
    const records = await withApp((app) => app.runtime.getRecords(threadId, viewer, { limit: 10 }));
    expect(records.toolCalls).toMatchObject([{ tool: "restart_service", error_code: "permission_denied" }]);
  });

  it("refuses bad JSON, an unknown tool and args the schema refuses with one line each, exit 2 and no thread", async () => {
    const threads = await threadCount();
    const [badJson, notObject, typo, bareTypo, unknown, badArgs] = await Promise.all([
      runCliProcess(["ask", "--call", "search_logs", "{service:"], { db }),
      runCliProcess(["ask", "--call", "search_logs", "[1]"], { db }),
      runCliProcess(["ask", "--call", "restart_servce", "{}"], { db }),
      runCliProcess(["ask", "--call", "get_metrics", "{}"], { db }),
      runCliProcess(["ask", "--call", "page_the_cto", "{}"], { db }),
      runCliProcess(["ask", "--call", "search_logs", JSON.stringify({ service: 42, environment: "prod" })], { db }),
    ]);
    expectOneLineRefusal(badJson, "opspilot: --call search_logs: not valid JSON: {service:.");
    expectOneLineRefusal(
      notObject,
      'opspilot: --call search_logs: the args must be a JSON object, e.g. {"environment":"prod"}.',
    );
    expectOneLineRefusal(typo, 'opspilot: There is no tool named "restart_servce"; did you mean restart_service?');
    expectOneLineRefusal(bareTypo, 'opspilot: There is no tool named "get_metrics"; did you mean get_service_metrics?');
    expectOneLineRefusal(
      unknown,
      'opspilot: There is no tool named "page_the_cto"; 7 tools are listed by npm run ask -- --tools.',
    );
    // The words a model's call gets from validate_calls.
    expectOneLineRefusal(
      badArgs,
      "opspilot: Invalid arguments for search_logs: service: Invalid input: expected string, received number.",
    );
    expect(await threadCount()).toBe(threads);
  });

  it("refuses --call and --no-model where they do not fit", () => {
    expect(parseCliArgs(["ask", "--call", "search_docs", '{"query":"RB-003"}'])).toMatchObject({
      command: "call",
      call: { tool: "search_docs", args: { query: "RB-003" } },
      noModel: true,
      carried: ["--no-model"],
    });
    expect(parseCliArgs(["ask", "--call", "read_result"]).call).toEqual({ tool: "read_result", args: {} });
    expect(() => parseCliArgs(["chat", "--call", "search_docs"])).toThrow(
      "--call and --no-model work with ask, not chat.",
    );
    expect(() => parseCliArgs(["ask", "--thread", "t1", "--call", "search_docs"])).toThrow(
      "--call starts a new thread; answer the pause of one with --thread <id> --no-model.",
    );
    expect(() => parseCliArgs(["ask", "--call", "restart_service", "--reject", "no"])).toThrow(
      "--call takes --approve and --param; --edit, --reject and --resume answer a pause with --thread <id>.",
    );
    expect(() => parseCliArgs(["ask", "--no-model", "hi"])).toThrow(
      "--no-model answers a thread's pause without a model: add --thread <id>, or run one tool with --call <tool> '<json>'.",
    );
    expect(() => parseCliArgs(["ask", "--no-model", "--thread", "t1", "hi"])).toThrow(
      "--no-model asks no model, so it takes no question.",
    );
    expect(() => parseCliArgs(["ask", "--tools", "--call", "search_docs"])).toThrow(
      "--tools lists the tools and takes no question, --thread, --call or answer flags.",
    );
  });

  it("prints answer commands that carry --user, --role and the limit flags, and they work as printed", async () => {
    const before = count("rollback");
    const asked = await runCliProcess(
      ["ask", "--user", "root", "--role", "admin", "--max-steps", "6", "roll back payment-service in prod"],
      { db },
    );
    expect(asked.code).toBe(0);
    const threadId = threadOf(asked.stdout);
    const argv = printedApproval(asked.stdout);
    expect(argv).toEqual(["--thread", threadId, "--user", "root", "--role", "admin", "--max-steps", "6", "--approve"]);
    expect(asked.stdout).toContain(
      `or, in a terminal: npm run ask -- --thread ${threadId} --user root --role admin --max-steps 6   (asks you in place)`,
    );
    const approved = await runCliProcess(["ask", ...argv], { db });
    expect(approved.stderr).toBe("");
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/✓ \[\d\] rollback_deploy · /);
    expect(count("rollback")).toBe(before + 1);
  });
});

describe("ask --tools and the config file", { timeout: 60_000 }, () => {
  let directory: string;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "opspilot-cli-tools-"));
    mkdirSync(join(directory, "files"));
    writeFileSync(
      join(directory, "opspilot.config.json"),
      JSON.stringify({ mcpServers: { fs: filesystemServer(join(directory, "files")) } }),
    );
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const listTools = (cwd: string, env: Record<string, string> = {}) =>
    runCliProcess(["ask", "--tools"], { db: join(directory, "tools.sqlite"), cwd, env });

  it("reads OPSPILOT_CONFIG from .env, connects its MCP servers before listing, and names the file", async () => {
    const project = join(directory, "project");
    mkdirSync(project);
    writeFileSync(join(project, ".env"), `OPSPILOT_CONFIG=${join(directory, "opspilot.config.json")}\n`);
    // A variable exported blank counts as unset: the .env value still applies.
    const result = await listTools(project, { OPSPILOT_CONFIG: "" });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const [header, blank, columns, ...rows] = result.stdout.split("\n");
    expect(header).toBe(`Config file: ${join(directory, "opspilot.config.json")} (OPSPILOT_CONFIG) · MCP servers: fs`);
    expect(blank).toBe("");
    expect(columns).toMatch(/^TOOL +KIND +RISK/);
    const fsRows = rows.filter((row) => row.startsWith("fs__"));
    expect(fsRows.map((row) => row.split(" ")[0])).toContain("fs__read_text_file");
    expect(fsRows.every((row) => row.includes("mcp:fs") && row.endsWith("available"))).toBe(true);

    const json = await runCliProcess(["ask", "--tools", "--json"], {
      db: join(directory, "tools.sqlite"),
      cwd: project,
    });
    const listed = JSON.parse(json.stdout) as { configFile: unknown; tools: Array<{ name: string }> };
    expect(listed.configFile).toEqual({ path: join(directory, "opspilot.config.json"), mcpServers: ["fs"] });
    expect(listed.tools.map((tool) => tool.name)).toContain("fs__read_text_file");
  });

  it("says there is no config file when neither the environment nor .env names one", async () => {
    const empty = join(directory, "empty");
    mkdirSync(empty);
    const result = await listTools(empty, { OPSPILOT_CONFIG: "" });
    expect(result.code).toBe(0);
    expect(lines(result.stdout)[0]).toBe(
      "Config file: none (OPSPILOT_CONFIG is set neither in the environment nor in .env): the built-in tools as they are.",
    );
    expect(result.stdout).not.toContain("fs__");
  });
});
