import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { RunEventSchema, type RunEvent } from "../../src/contracts/events.js";
import { runCliProcess, startCli, type CliResult } from "../fixtures/cli-process.js";

const SEED = "看看支付服务最近报错，顺便对照一下文档里的处理建议";
const LOCAL = { id: "local", role: "operator" };

const threadOf = (stdout: string) => /thread: ([0-9a-f-]{36})/.exec(stdout)?.[1] ?? "";
const lines = (text: string) => text.split("\n").filter((line) => line.length > 0);
const jsonEvents = (stdout: string): RunEvent[] => lines(stdout).map((line) => RunEventSchema.parse(JSON.parse(line)));

/** A refusal: exactly one line on stderr, nothing on stdout, exit 2, no stack trace. */
function expectOneLineRefusal(result: CliResult, pattern: RegExp): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(lines(result.stderr)).toHaveLength(1);
  expect(result.stderr.trimEnd()).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe("the CLI without a terminal (demo model, SQLite file)", { timeout: 90_000 }, () => {
  let directory: string;
  let db: string;
  let seedThread = "";

  const restarts = (environment?: string): number => {
    const connection = new Database(db, { readonly: true });
    try {
      const row = connection
        .prepare(
          `SELECT COUNT(*) AS count FROM ops_actions WHERE action = 'restart'${environment ? " AND environment = ?" : ""}`,
        )
        .get(...(environment ? [environment] : [])) as { count: number };
      return row.count;
    } finally {
      connection.close();
    }
  };

  /** The thread as the runtime sees it, read in this process from the same file. */
  const threadView = async (threadId: string) => {
    const app = createApp({ dbPath: db });
    try {
      return await app.runtime.getThread(threadId, LOCAL);
    } finally {
      await app.close();
    }
  };

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "opspilot-cli-"));
    db = join(directory, "cli.sqlite");
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("prints the seed question's steps as they happen, the pause for environment and how to resume, then exits 0", async () => {
    const result = await runCliProcess(["ask", SEED], { db });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const out = result.stdout;
    seedThread = threadOf(out);
    expect(seedThread).not.toBe("");
    expect([...out.matchAll(/→ \[(\d)\] (\w+) /g)].map((match) => `${match[1]}:${match[2]}`)).toEqual([
      "1:search_resource",
      "2:search_docs",
      "3:search_logs",
    ]);
    // Parallel calls: both listed under step 1 before either result; search_logs is step 2.
    const at = (text: string) => out.indexOf(text);
    expect(at("step 1")).toBeLessThan(at("→ [1] search_resource"));
    expect(at("→ [2] search_docs")).toBeLessThan(at("✓ [1] search_resource"));
    expect(at("✓ [2] search_docs")).toBeLessThan(at("step 2"));
    expect(at("step 2")).toBeLessThan(at("→ [3] search_logs"));
    expect(out).toMatch(/✓ \[1\] search_resource · \d+ result\(s\) \((\d+ ms|\d+\.\d s)\)/);
    expect(out).toMatch(/✓ \[2\] search_docs · \d+ result\(s\) \((\d+ ms|\d+\.\d s)\)/);
    expect(out).toContain("⏸ Waiting for you (params_required): search_logs");
    expect(out).toContain("      needs environment: ");
    expect(out).toContain("      allowed values: prod | staging");
    expect(out).toMatch(
      /■ stop: interrupted · 2 steps · (\d+ ms|\d+\.\d s) · [\d,]+ tokens\n {2}thread: [0-9a-f-]{36}\n/,
    );
    expect(out).toContain(
      `To answer, run one of:\n  npm run ask -- --thread ${seedThread} --param environment=prod\n  npm run ask -- --thread ${seedThread} --param environment=staging\n`,
    );
    expect(out).toContain(`npm run ask -- --thread ${seedThread} --reject "reason"`);
    expect(out).not.toContain("[demo model]");
    expect((await threadView(seedThread)).status).toBe("interrupted");
  });

  it("resumes the seed thread with --param environment=prod and prints the answer citing PAY-5031 and RB-003", async () => {
    const result = await runCliProcess(["ask", "--thread", seedThread, "--param", "environment=prod"], { db });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/✓ \[3\] search_logs · \d+ match\(es\) · filled by local \((\d+ ms|\d+\.\d s)\)/);
    expect(result.stdout).toContain("PAY-5031");
    expect(result.stdout).toContain("RB-003");
    // A run over a second (a loaded machine) prints its time in seconds.
    expect(result.stdout).toMatch(/■ stop: final_answer · 3 steps · (\d+ ms|\d+\.\d s) · [\d,]+ tokens\n {2}thread: /);
    expect(threadOf(result.stdout)).toBe(seedThread);
    expect(result.stdout).not.toContain("Waiting for you");
    expect((await threadView(seedThread)).status).toBe("idle");
  });

  it("restarts the payment service exactly once through --thread, and refuses a high-risk call without --approve", async () => {
    const asked = await runCliProcess(["ask", "重启支付服务"], { db });
    expect(asked.code).toBe(0);
    const threadId = threadOf(asked.stdout);
    expect(asked.stdout).toMatch(/→ \[\d\] restart_service /);
    expect(asked.stdout).toContain("high risk");
    expect(restarts()).toBe(0);

    // The environment is missing and the restart is high risk: one pause carries the form and the risk.
    expect(asked.stdout).toContain(
      "⚠ Waiting for your approval of a high-risk action (confirm_risky): restart_service 需要您提供：environment，且是高风险操作：请确认最终参数后批准、修改或拒绝。",
    );
    expect(asked.stdout).toContain(
      `npm run ask -- --thread ${threadId} --param environment=prod --approve   approves restart_service {"service":"payment-service","environment":"prod"}`,
    );
    const withoutApproval = await runCliProcess(["ask", "--thread", threadId, "--param", "environment=prod"], { db });
    expectOneLineRefusal(withoutApproval, /^opspilot: restart_service is a high-risk action: add --approve/);
    expect(restarts()).toBe(0);
    const approved = await runCliProcess(["ask", "--thread", threadId, "--param", "environment=prod", "--approve"], {
      db,
    });
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/✓ \[\d\] restart_service · /);
    expect(approved.stdout).toContain("■ stop: final_answer");
    expect(restarts("prod")).toBe(1);

    const again = await runCliProcess(["ask", "--thread", threadId, "--approve"], { db });
    expectOneLineRefusal(again, /^opspilot: Thread [0-9a-f-]{36} is not waiting for input\. \[not_paused\]$/);
    expect(restarts()).toBe(1);
  });

  it("refuses an approval from a role that may not run the tool with one line and exit 2, keeping the pause for the admin", async () => {
    const rollbacks = () => {
      const connection = new Database(db, { readonly: true });
      try {
        return (
          connection.prepare("SELECT COUNT(*) AS count FROM ops_actions WHERE action = 'rollback'").get() as {
            count: number;
          }
        ).count;
      } finally {
        connection.close();
      }
    };
    const asked = await runCliProcess(
      ["ask", "--user", "root", "--role", "admin", "roll back payment-service in prod"],
      { db },
    );
    expect(asked.code).toBe(0);
    expect(asked.stdout).toContain(
      "(confirm_risky): rollback_deploy is a high-risk action; approve, edit or reject it.",
    );
    const threadId = threadOf(asked.stdout);
    const root = { id: "root", role: "admin" };
    const app = createApp({ dbPath: db });
    const before = await app.runtime.getThread(threadId, root).finally(() => app.close());
    const callId = before.interrupt?.calls[0]?.callId ?? "";

    const refused = await runCliProcess(
      ["ask", "--thread", threadId, "--user", "root", "--role", "operator", "--approve"],
      { db },
    );
    expectOneLineRefusal(
      refused,
      new RegExp(
        `^opspilot: Your role \\(operator\\) is not allowed to use rollback_deploy, so you cannot approve or edit call ${callId}; it keeps waiting for a user who may\\. \\[permission_denied\\]$`,
      ),
    );
    expect(rollbacks()).toBe(0);
    const reopened = createApp({ dbPath: db });
    expect(await reopened.runtime.getThread(threadId, root).finally(() => reopened.close())).toEqual(before);

    const approved = await runCliProcess(
      ["ask", "--thread", threadId, "--user", "root", "--role", "admin", "--approve"],
      { db },
    );
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/✓ \[\d\] rollback_deploy · /);
    expect(rollbacks()).toBe(1);
  });

  it("refuses a bad resume with one line and exit 2, leaving the thread exactly as it was", async () => {
    const asked = await runCliProcess(["ask", "重启支付服务"], { db });
    const threadId = threadOf(asked.stdout);
    const before = await threadView(threadId);
    expect(before.status).toBe("interrupted");

    const badEdit = await runCliProcess(["ask", "--thread", threadId, "--edit", '{"bad":1}'], { db });
    expectOneLineRefusal(badEdit, /^opspilot: .+ \[resume_rejected\]$/);
    const badValue = await runCliProcess(["ask", "--thread", threadId, "--param", "environment=moon", "--approve"], {
      db,
    });
    expectOneLineRefusal(badValue, /^opspilot: --param environment must be one of prod, staging \(got "moon"\)\.$/);
    const notJson = await runCliProcess(["ask", "--thread", threadId, "--edit", "{bad"], { db });
    expectOneLineRefusal(notJson, /^opspilot: --edit: not valid JSON: \{bad\.$/);

    expect(await threadView(threadId)).toEqual(before);
    expect(restarts()).toBe(1);
  });

  it("prints only JSON lines with --json, whose types, order and sequence follow design §6", async () => {
    const first = await runCliProcess(["ask", "--json", SEED], { db });
    expect(first.code).toBe(0);
    expect(first.stderr).toBe("");
    const events = jsonEvents(first.stdout);
    expect(events.map((event) => event.type)).toEqual([
      "run_started",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "tool_call",
      "loop_interrupt",
      "run_finished",
    ]);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const threadId = events[0]!.threadId;
    expect(events.every((event) => event.threadId === threadId && event.runId === events[0]!.runId)).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });

    const pending = await runCliProcess(["ask", "--json", "--thread", threadId], { db });
    expect(pending.code).toBe(0);
    expect(jsonEvents(pending.stdout)).toEqual([events[6]]);

    const second = await runCliProcess(["ask", "--json", "--thread", threadId, "--param", "environment=staging"], {
      db,
    });
    expect(second.code).toBe(0);
    const resumed = jsonEvents(second.stdout);
    expect(resumed.map((event) => event.type)).toEqual([
      "run_started",
      "tool_result",
      "assistant_message",
      "run_finished",
    ]);
    expect(resumed.map((event) => event.seq)).toEqual([9, 10, 11, 12]);
    expect(resumed.at(-1)).toMatchObject({ stopReason: "final_answer" });
  });

  it("reports bad usage, an unknown thread and a bad configuration as one line with exit 2", async () => {
    const [noQuestion, unknownFlag, orphanApprove, badRole, unknownThread, badConfig] = await Promise.all([
      runCliProcess(["ask"], { db }),
      runCliProcess(["ask", "--frob", "hi"], { db }),
      runCliProcess(["ask", "--approve"], { db }),
      runCliProcess(["ask", "--role", "root", "hi"], { db }),
      runCliProcess(["ask", "--thread", "no-such-thread"], { db }),
      runCliProcess(["ask", "hi"], { db, env: { OPSPILOT_MODEL_TIMEOUT_MS: "soon" } }),
    ]);
    expectOneLineRefusal(noQuestion, /^opspilot: Missing question: npm run ask -- "your question"/);
    expectOneLineRefusal(unknownFlag, /^opspilot: Unknown option '--frob'\. Run with --help for usage\.$/);
    expectOneLineRefusal(
      orphanApprove,
      /^opspilot: --approve, --param, --edit, --reject and --resume answer a pause: add --thread <id>\.$/,
    );
    expectOneLineRefusal(badRole, /^opspilot: --role must be one of viewer, operator, admin \(got "root"\)\.$/);
    expectOneLineRefusal(unknownThread, /^opspilot: Thread no-such-thread was not found\. \[thread_not_found\]$/);
    expectOneLineRefusal(
      badConfig,
      /^opspilot: Invalid environment: OPSPILOT_MODEL_TIMEOUT_MS must be an integer from 1000 to 600000\. \[config_invalid\]$/,
    );
  });

  it("prints the usage with every flag on --help and exits 0", async () => {
    const result = await runCliProcess(["ask", "--help"], { db });
    expect(result.code).toBe(0);
    for (const flag of [
      "--thread",
      "--approve",
      "--param",
      "--edit",
      "--reject",
      "--resume",
      "--json",
      "--no-input",
      "--role",
      "--user",
      "--max-steps",
      "--help",
    ]) {
      expect(result.stdout).toContain(flag);
    }
  });

  it("chats line by line on one thread, stops at a pause with how to resume (--no-input), and continues it with --thread", async () => {
    const chat = startCli(["chat", "--no-input"], { db });
    chat.write("hello\n");
    await chat.waitFor(/■ stop: final_answer/);
    chat.write("看看支付服务最近报错\n");
    const paused = await chat.finish();
    expect(paused.code).toBe(0);
    expect(paused.stdout).toContain("you › hello\n");
    expect(paused.stdout).toContain("[demo model]");
    expect(paused.stdout).toContain("⏸ Waiting for you (params_required)");
    const threadId = threadOf(paused.stdout);
    expect(paused.stdout).toContain(`npm run ask -- --thread ${threadId} --param environment=prod`);
    expect(paused.stdout).toContain("The chat ends at this pause: with --no-input it reads no answers");

    const resumed = startCli(["chat", "--thread", threadId, "--param", "environment=prod"], { db });
    await resumed.waitFor(/you › $/);
    resumed.write("/exit\n");
    const done = await resumed.finish();
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("■ stop: final_answer");
    expect(done.stdout).toContain("PAY-5031");
    expect(done.stdout.trimEnd().endsWith(`thread: ${threadId}`)).toBe(true);
  });

  it("cancels the run on Ctrl-C through the runtime and prints the cancelled stop", async () => {
    const session = startCli(["ask", "go"], {
      db: join(directory, "slow.sqlite"),
      entry: "test/fixtures/cli-slow-app.ts",
    });
    await session.waitFor(/→ \[1\] slow_read /);
    session.signal("SIGINT");
    const result = await session.finish(15_000);
    expect(result.code).toBe(130);
    expect(result.stderr).toBe("Cancelling the run… (Ctrl-C again to quit at once)\n");
    expect(result.stdout).toMatch(/✗ \[1\] slow_read cancelled · /);
    expect(result.stdout).toMatch(/■ stop: cancelled · 1 step · (\d+ ms|\d+\.\d s)/);
  });
});
