import { describe, expect, it } from "vitest";
import { answerMessage } from "../../fixtures/scripted-model.js";
import { createServer } from "../../../src/server/app.js";
import { createHarness } from "../../fixtures/harness.js";

describe("event streams", () => {
  it("send keep-alive comments while a slow model call leaves them idle, between whole frames", async () => {
    const harness = createHarness({
      script: [answerMessage("Slow answer.")],
      modelDelayMs: 200,
      user: { id: "local", role: "operator" },
    });
    const app = createServer({ runtime: harness.runtime, sseKeepAliveMs: 40 });
    const threadId = await harness.runtime.createThread(harness.user);
    const response = await app.request(`/api/threads/${threadId}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "hi" }),
    });
    const blocks = (await response.text()).split("\n\n").filter(Boolean);
    const comments = blocks.filter((block) => block === ": keep-alive");
    expect(comments.length).toBeGreaterThanOrEqual(2);
    expect(blocks.filter((block) => block !== ": keep-alive").map((block) => block.split("\n")[0])).toEqual([
      "event: run_started",
      "event: assistant_message",
      "event: run_finished",
    ]);
  });
});
