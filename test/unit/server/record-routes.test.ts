import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import { createServer } from "../../../src/server/app.js";
import { createHarness } from "../../fixtures/harness.js";

/** Three runs on one thread, each one read and an answer. */
async function threeRuns() {
  const script = [1, 2, 3].flatMap((n) => [
    callsMessage([{ name: "read_a", args: { query: `q${n}` }, id: `c${n}` }]),
    answerMessage(`answer ${n}`),
  ]);
  // The local user: with no tokens configured, every request acts as it.
  const harness = createHarness({ script, user: { id: "local", role: "operator" } });
  const threadId = await harness.runtime.createThread(harness.user);
  for (const n of [1, 2, 3]) await harness.askOn(threadId, `question ${n}`);
  return { harness, threadId };
}

describe("records over HTTP", () => {
  it("pages a thread's records by whole runs with an opaque cursor", async () => {
    const { harness, threadId } = await threeRuns();
    const app = createServer({ runtime: harness.runtime });
    const first = await app.request(`/api/threads/${threadId}/records?limit=2`);
    expect(first.status).toBe(200);
    const page1 = (await first.json()) as Record<string, Array<Record<string, unknown>>> & { nextCursor: string };
    expect(page1.runs).toHaveLength(2);
    expect(page1.toolCalls.map((call) => call.call_id)).toEqual(["c1", "c2"]);
    expect(page1.steps).toHaveLength(4);
    expect(typeof page1.nextCursor).toBe("string");

    const second = await app.request(`/api/threads/${threadId}/records?limit=2&cursor=${page1.nextCursor}`);
    const page2 = (await second.json()) as Record<string, Array<Record<string, unknown>>> & { nextCursor: null };
    expect(page2.toolCalls.map((call) => [call.call_id, call.args_summary])).toEqual([["c3", "query=q3"]]);
    expect(page2.runs.map((run) => run.run_id)).not.toContain(page1.runs[0]!.run_id);
    expect(page2.nextCursor).toBeNull();

    for (const query of ["limit=0", "limit=501", "limit=two", "cursor=not-a-cursor"]) {
      const refused = await app.request(`/api/threads/${threadId}/records?${query}`);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: { code: "invalid_request" } });
    }
    await harness.close();
  });

  it("exports the records of a window as JSON Lines, run by run", async () => {
    const { harness } = await threeRuns();
    const app = createServer({ runtime: harness.runtime });
    const response = await app.request(`/api/records/export?since=${new Date(Date.now() - 60_000).toISOString()}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    const text = await response.text();
    expect(text.endsWith("\n")).toBe(true);
    const lines = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.kind)).toEqual([1, 2, 3].flatMap(() => ["run", "step", "step", "tool_call"]));
    expect(lines.filter((line) => line.kind === "tool_call").map((line) => line.call_id)).toEqual(["c1", "c2", "c3"]);
    const soon = Date.now() + 60_000;
    const later = await app.request(
      `/api/records/export?since=${new Date(soon).toISOString()}&until=${new Date(soon + 60_000).toISOString()}`,
    );
    expect(later.status).toBe(200);
    expect(await later.text()).toBe("");
    await harness.close();
  });

  it("exports to an admin only once tokens are configured", async () => {
    const harness = createHarness({ script: [answerMessage("ok")] });
    const tokens = new Map([
      ["admin-token-0001", { id: "ada", role: "admin" }],
      ["viewer-token-0002", { id: "vera", role: "viewer" }],
    ]);
    const app = createServer({ runtime: harness.runtime, auth: { tokens } });
    const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
    const viewer = await app.request("/api/records/export", as("viewer-token-0002"));
    expect(viewer.status).toBe(403);
    expect(await viewer.json()).toEqual({
      error: { code: "forbidden", message: "Only an admin may export the records." },
    });
    expect((await app.request("/api/records/export", as("admin-token-0001"))).status).toBe(200);
    expect((await app.request("/api/records/summary", as("viewer-token-0002"))).status).toBe(200);
    await harness.close();
  });
});
