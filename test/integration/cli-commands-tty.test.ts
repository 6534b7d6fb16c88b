import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { ptyAvailable, runCliProcess, startCliInPty } from "../fixtures/cli-process.js";

/** Terminal output with carriage returns and cursor codes removed, as a person reads it. */
const ANSI_CODE = new RegExp(String.fromCharCode(27) + "\\[[0-9;]*[A-Za-z]", "g");
const plain = (text: string) => text.replace(ANSI_CODE, "").replace(/\r/g, "");
const count = (text: string, part: string) => text.split(part).length - 1;
const QUESTION = "check the payment service errors in prod";

describe.skipIf(!ptyAvailable())("the streamed answer in a terminal", { timeout: 60_000 }, () => {
  let directory: string;
  let db: string;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "opspilot-cli-stream-"));
    db = join(directory, "cli.sqlite");
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  /** The recorded answer of the thread a CLI run printed. */
  async function answerOf(output: string): Promise<string> {
    const threadId = /thread: ([0-9a-f-]{36})/.exec(output)![1]!;
    const app = createApp({ dbPath: db });
    try {
      const events = await app.runtime.eventsAfter(threadId, { id: "local", role: "operator" }, 0);
      const message = events.find((event) => event.type === "assistant_message");
      if (message?.type !== "assistant_message") throw new Error("expected an answer");
      return message.content;
    } finally {
      await app.close();
    }
  }

  it("prints the answer once on a terminal, as it is written, and once when piped", async () => {
    const result = await startCliInPty(["ask", QUESTION], { db }).finish();
    const out = plain(result.stdout);
    expect(result.code).toBe(0);
    const answer = await answerOf(out);
    expect(answer).toContain("PAY-");
    expect(count(out, "[demo model]")).toBe(1);
    expect(out).toContain(`\n${answer}\n\n■ stop: final_answer`);

    const piped = await runCliProcess(["ask", QUESTION], { db });
    expect(piped.code).toBe(0);
    expect(count(piped.stdout, "[demo model]")).toBe(1);
    expect(piped.stdout).toContain(`\n${await answerOf(piped.stdout)}\n\n■ stop: final_answer`);
  });
});
