import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessageTooLongError } from "../../src/contracts/errors.js";
import { runCliProcess, startCli } from "../fixtures/cli-process.js";
import { startTestServer } from "../fixtures/http.js";

const LONG = "x".repeat(9_000);
const REFUSAL =
  "The message is 9000 characters long; at most 8000 are accepted. Shorten it or split it into several messages.";
const THREAD_ID = /thread: ([0-9a-f-]{36})/g;

describe("chat commands and the message limit", { timeout: 90_000 }, () => {
  let directory: string;
  let db: string;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "opspilot-cli-commands-"));
    db = join(directory, "cli.sqlite");
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const threadCount = (file: string) => {
    const connection = new Database(file, { readonly: true });
    try {
      return (connection.prepare("SELECT COUNT(*) AS count FROM opspilot_threads").get() as { count: number }).count;
    } finally {
      connection.close();
    }
  };

  it("treats /help, /thread, /new and /exit as commands, hints at an unknown /word, and sends none to the model", async () => {
    const chat = startCli(["chat"], { db });
    await chat.waitFor(/you › $/);
    chat.write("/help\n/thread\n/frob\n/new\n/thread\n/exit\n");
    const result = await chat.finish();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("  /thread   the thread's id and how to come back to it");
    expect(result.stdout).toContain("  /new      start a new thread");
    const ids = [...result.stdout.matchAll(THREAD_ID)].map((match) => match[1]!);
    // /thread before /new, /thread after it, and the closing line.
    expect(ids).toHaveLength(3);
    expect(ids[0]).not.toBe(ids[1]);
    expect(ids[2]).toBe(ids[1]);
    expect(result.stdout).toContain(`resume it later with: npm run chat -- --thread ${ids[0]}`);
    expect(result.stdout).toContain(`new thread ${ids[1]} (the previous one, ${ids[0]}, is kept)`);
    expect(result.stderr).toBe(
      "Unknown command /frob: the commands are /help, /thread, /new and /exit. Nothing was sent.\n",
    );
    expect(result.stdout).not.toContain("▶ run");
    expect(result.stdout).not.toContain("[demo model]");
  });

  it("still sends a line that starts with a path as a question", async () => {
    const chat = startCli(["chat"], { db });
    await chat.waitFor(/you › $/);
    chat.write("/api/orders returns errors in the order service, prod\n");
    await chat.waitFor(/■ stop: /);
    chat.write("/exit\n");
    const result = await chat.finish();
    expect(result.stdout).toContain("▶ run");
    expect(result.stderr).toBe("");
  });

  it("refuses a 9,000-character question in ask, in chat, in the runtime and over the API with the same words", async () => {
    const fresh = join(directory, "long.sqlite");
    const ask = await runCliProcess(["ask", LONG], { db: fresh });
    expect(ask.code).toBe(2);
    expect(ask.stdout).toBe("");
    expect(ask.stderr).toBe(`opspilot: ${REFUSAL} [invalid_request]\n`);
    // Refused before a thread was made for it.
    expect(threadCount(fresh)).toBe(0);

    const chat = startCli(["chat"], { db });
    await chat.waitFor(/you › $/);
    chat.write(LONG + "\n");
    await chat.waitFor(/you › [\s\S]*you › $/);
    chat.write("/exit\n");
    const chatted = await chat.finish();
    expect(chatted.code).toBe(0);
    expect(chatted.stderr).toBe(`opspilot: ${REFUSAL} [invalid_request]\n`);
    expect(chatted.stdout).not.toContain("▶ run");

    const server = await startTestServer();
    try {
      const threadId = await server.client.createThread();
      const response = await server.client.request("POST", `/api/threads/${threadId}/runs`, { message: LONG });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: { code: "invalid_request", message: REFUSAL } });
      const accepted = await server.client.request("POST", `/api/threads/${threadId}/runs`, {
        message: `  ${"y".repeat(8_000)}  `,
      });
      expect(accepted.status).toBe(200);
      await accepted.text();
      const user = { id: "local", role: "operator" };
      const own = await server.runtime.createThread(user);
      const refused = await server.runtime.startRun({ threadId: own, message: LONG, user }).catch((error) => error);
      expect(refused).toBeInstanceOf(MessageTooLongError);
      expect((refused as Error).message).toBe(REFUSAL);
    } finally {
      await server.close();
    }
  });
});
