import { describe, expect, it } from "vitest";
import { journaledResults } from "../../../src/execution/write-journal.js";
import { openSqlite } from "../../../src/storage/sqlite/open-sqlite.js";

describe("journaledResults", () => {
  it("answers a failed run's unanswered calls from the journal: finished as recorded, started as unknown", async () => {
    const backend = openSqlite(":memory:");
    const journal = backend.storage;
    await journal.startEntry({ threadId: "t1", callId: "done", tool: "restart_service", argsHash: "h1" });
    await journal.finishEntry("t1", "done", { ok: true, data: { action: "restart", service: "payment-service" } });
    await journal.startEntry({ threadId: "t1", callId: "cut", tool: "restart_service", argsHash: "h2" });
    const results = await journaledResults({
      journal,
      threadId: "t1",
      calls: [
        { id: "done", name: "restart_service", args: {} },
        { id: "cut", name: "restart_service", args: {} },
        { id: "never", name: "restart_service", args: {} },
      ],
      maxChars: 4_000,
    });
    expect(results.map((message) => [message.tool_call_id, message.status])).toEqual([
      ["done", "success"],
      ["cut", "error"],
    ]);
    expect(JSON.parse(String(results[0]!.content))).toMatchObject({
      ok: true,
      data: { action: "restart", service: "payment-service" },
    });
    expect(JSON.parse(String(results[1]!.content))).toMatchObject({ ok: false, errorCode: "outcome_unknown" });
    backend.close();
  });
});
