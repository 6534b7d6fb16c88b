import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { ptyAvailable, startCliInPty } from "../fixtures/cli-process.js";

const SEED = "看看支付服务最近报错，顺便对照一下文档里的处理建议";

/** Terminal output with carriage returns and cursor codes removed, as a person reads it. */
const ANSI_CODE = new RegExp(String.fromCharCode(27) + "\\[[0-9;]*[A-Za-z]", "g");
const plain = (text: string) => text.replace(ANSI_CODE, "").replace(/\r/g, "");
const count = (text: string, part: string) => text.split(part).length - 1;

describe.skipIf(!ptyAvailable())(
  "the CLI in a terminal (pseudo-tty through util-linux script)",
  { timeout: 60_000 },
  () => {
    let directory: string;
    let db: string;

    beforeAll(() => {
      directory = mkdtempSync(join(tmpdir(), "opspilot-cli-tty-"));
      db = join(directory, "cli.sqlite");
    });
    afterAll(() => rmSync(directory, { recursive: true, force: true }));

    it("asks for the environment in place, refuses a value outside prod/staging, then resumes to the answer", async () => {
      const session = startCliInPty(["ask", SEED], { db });
      await session.waitFor(/environment \[prod\/staging\] › /);
      expect(plain(session.stdout)).toContain(
        "[3] search_logs · environment: 1) prod   2) staging   (/reject refuses the call)",
      );
      session.write("moon\r");
      await session.waitFor(/environment must be one of prod, staging \(got "moon"\)/);
      await session.waitFor(/environment \[prod\/staging\] › /, 10_000, session.stdout.lastIndexOf("moon"));
      session.write("1\r");
      const result = await session.finish();
      const out = plain(result.stdout);
      expect(result.code).toBe(0);
      expect(out).toContain("✓ [3] search_logs · ");
      expect(out).toContain("RB-003");
      expect(out).toMatch(/■ stop: final_answer · 3 steps/);
      expect(out).not.toContain("To answer, run one of:");
    });

    it("shows the exact restart and its args, takes edited JSON args, and records the edited restart once", async () => {
      const session = startCliInPty(["ask", "restart payment service in staging"], { db });
      await session.waitFor(/Run it\? \[a\]pprove \/ \[e\]dit \/ \[r\]eject › /);
      expect(plain(session.stdout)).toContain(
        'high risk: restart_service {"service":"payment-service","environment":"staging"}',
      );
      session.write("e\r");
      await session.waitFor(/New args as JSON \(empty to go back\) › /);
      session.write("{bad\r");
      await session.waitFor(/not valid JSON: \{bad/);
      session.write('{"service":"payment-service","environment":"prod"}\r');
      const result = await session.finish();
      expect(result.code).toBe(0);
      expect(plain(result.stdout)).toMatch(/✓ \[2\] restart_service · restart payment-service prod/);
      const connection = new Database(db, { readonly: true });
      try {
        const rows = connection.prepare("SELECT environment FROM ops_actions WHERE action = 'restart'").all();
        expect(rows).toEqual([{ environment: "prod" }]);
      } finally {
        connection.close();
      }
    });

    it("leaves the pause waiting when Ctrl-C is pressed at the prompt, and says how to resume", async () => {
      const session = startCliInPty(["ask", SEED], { db });
      await session.waitFor(/environment \[prod\/staging\] › /);
      session.write("\u0003");
      const result = await session.finish();
      const out = plain(result.stdout);
      expect(result.code).toBe(0);
      expect(out).toContain("To answer, run one of:");
      expect(count(out, "■ stop:")).toBe(1);
      const threadId = /thread: ([0-9a-f-]{36})/.exec(out)![1]!;
      const app = createApp({ dbPath: db });
      try {
        expect(await app.runtime.getThread(threadId, { id: "local", role: "operator" })).toMatchObject({
          status: "interrupted",
          interrupt: { interruptType: "params_required" },
        });
      } finally {
        await app.close();
      }
    });
  },
);
