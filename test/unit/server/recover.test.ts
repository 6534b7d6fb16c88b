import { describe, expect, it } from "vitest";
import { answerMessage } from "../../fixtures/scripted-model.js";
import { createServer } from "../../../src/server/app.js";
import { createHarness, shape } from "../../fixtures/harness.js";
import { leaveUnfinished } from "../../fixtures/unfinished-thread.js";

describe("a run whose process stopped mid-step", () => {
  it("shows as unfinished, refuses new messages, and is finished by /recover from its last checkpoint", async () => {
    const harness = createHarness({
      script: [answerMessage("Recovered answer.")],
      user: { id: "local", role: "operator" },
    });
    const app = createServer({ runtime: harness.runtime });
    const threadId = await harness.runtime.createThread(harness.user);
    await leaveUnfinished(harness.graph, threadId);

    const view = await (await app.request(`/api/threads/${threadId}`)).json();
    expect(view).toMatchObject({ status: "idle", unfinished: true });
    const refused = await app.request(`/api/threads/${threadId}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "again" }),
    });
    expect(refused.status).toBe(409);
    expect((await refused.json()).error.code).toBe("thread_unfinished");

    const recovered = await app.request(`/api/threads/${threadId}/recover`, { method: "POST" });
    expect(recovered.headers.get("content-type")).toContain("text/event-stream");
    const frames = (await recovered.text())
      .split("\n")
      .filter((line) => line.startsWith("event: "))
      .map((line) => line.slice(7));
    // The process died before the proposed call's event was recorded: the recovery sends it before its result.
    expect(frames).toEqual(["run_started", "tool_call", "tool_result", "assistant_message", "run_finished"]);
    expect(shape((await harness.state(threadId)).messages)).toEqual(["human", "ai:read_a", "tool:read_a:ok", "ai"]);
    const nothing = await app.request(`/api/threads/${threadId}/recover`, { method: "POST" });
    expect((await nothing.json()).error.code).toBe("nothing_to_recover");
  });
});
