import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { startCli, type CliResult } from "../fixtures/cli-process.js";

const LOCAL = { id: "local", role: "operator" };
const threadOf = (stdout: string) => /thread: ([0-9a-f-]{36})/.exec(stdout)?.[1] ?? "";
const runsIn = (stdout: string) => stdout.match(/▶ run /g)?.length ?? 0;

describe("npm run chat fed from a pipe", { timeout: 120_000 }, () => {
  let directory: string;
  let databases = 0;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "opspilot-cli-pipe-"));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  /** Feeds `input` to a chat on a fresh database and waits for it to end. */
  async function chat(input: string, flags: string[] = []): Promise<CliResult & { db: string }> {
    const db = join(directory, `pipe-${++databases}.sqlite`);
    const session = startCli(["chat", ...flags], { db });
    session.write(input);
    session.endInput();
    return { ...(await session.finish(60_000)), db };
  }

  const restarts = (db: string): string[] => {
    const connection = new Database(db, { readonly: true });
    try {
      const rows = connection.prepare("SELECT environment FROM ops_actions WHERE action = 'restart'").all();
      return rows.map((row) => (row as { environment: string }).environment);
    } finally {
      connection.close();
    }
  };

  const statusOf = async (db: string, threadId: string) => {
    const app = createApp({ dbPath: db });
    try {
      return (await app.runtime.getThread(threadId, LOCAL)).status;
    } finally {
      await app.close();
    }
  };

  it("reads a pause's answers from the next lines, then goes on with the questions after them", async () => {
    const result = await chat("重启支付服务\nprod\na\n看看支付服务最近报错\nstaging\n/exit\n");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain("environment [prod/staging] › prod\n");
    expect(out).toContain("Run it? [a]pprove / [e]dit / [r]eject › a\n");
    expect(out).toMatch(/✓ \[2\] restart_service · restart payment-service prod/);
    expect(out).toContain("you › 看看支付服务最近报错\n");
    expect(out).toContain("environment [prod/staging] › staging\n");
    expect(out).toMatch(/✓ \[\d\] search_logs · \d+ match\(es\)/);
    expect(out).not.toContain("To answer, run one of:");
    expect(out.match(/■ stop: final_answer/g)).toHaveLength(2);
    expect(restarts(result.db)).toEqual(["prod"]);
    expect(await statusOf(result.db, threadOf(out))).toBe("idle");
  });

  it("leaves the pause waiting at /exit or the end of input, printing how to answer it", async () => {
    for (const input of ["重启支付服务\n/exit\nnever read\n", "重启支付服务\nprod\n"]) {
      const result = await chat(input);
      expect(result.code).toBe(0);
      const threadId = threadOf(result.stdout);
      expect(result.stdout).toContain(
        `To answer, run one of:\n  npm run ask -- --thread ${threadId} --param environment=prod --approve`,
      );
      expect(result.stdout).not.toContain("never read");
      expect(runsIn(result.stdout)).toBe(1);
      expect(restarts(result.db)).toEqual([]);
      expect(await statusOf(result.db, threadId)).toBe("interrupted");
    }
  });

  it("with --no-input stops at the first pause and says the lines after it were not read", async () => {
    const result = await chat("重启支付服务\nprod\na\n看看支付服务最近报错\n", ["--no-input", "--role", "admin"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const threadId = threadOf(result.stdout);
    expect(result.stdout).toContain(
      `  npm run ask -- --thread ${threadId} --role admin --param environment=prod --approve`,
    );
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe(
      `The chat ends at this pause: with --no-input it reads no answers, so any lines after it were not read. ` +
        `Answer it (npm run ask -- --thread ${threadId} --role admin asks in place on a terminal), ` +
        `then go on with: npm run chat -- --thread ${threadId} --role admin`,
    );
    expect(runsIn(result.stdout)).toBe(1);
    expect(restarts(result.db)).toEqual([]);
  });

  it("with --json keeps stdout to events and says on stderr where the chat stopped", async () => {
    const result = await chat("重启支付服务\nprod\n", ["--json"]);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; threadId: string });
    expect(events.at(-2)?.type).toBe("loop_interrupt");
    expect(events.at(-1)?.type).toBe("run_finished");
    const threadId = events[0]!.threadId;
    // The prompt goes to stderr too with --json; the notice is the last line.
    expect(result.stderr.split("\n").slice(-2)).toEqual([
      `The chat ends at this pause: with --json it reads no answers, so any lines after it were not read. ` +
        `Answer it (npm run ask -- --thread ${threadId} asks in place on a terminal), ` +
        `then go on with: npm run chat -- --thread ${threadId}`,
      "",
    ]);
  });
});
