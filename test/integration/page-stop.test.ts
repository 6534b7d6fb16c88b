import { type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { stopSummary, stopWithAnswer } from "../../src/graph/stop-message.js";
import { toolMessage } from "../../src/execution/tool-message.js";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import type { StopReason } from "../../src/contracts/stop-reasons.js";
import { hasChromium, launchChromium } from "../fixtures/browser.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";
import { testTools } from "../fixtures/test-tools.js";

const RAISE = /raise the limit|放宽限制/;

describe("the message that ends a stopped run (6)", () => {
  const reasons: StopReason[] = ["max_steps", "timeout", "budget_exhausted", "loop_detected", "too_many_fails"];

  it("never advises raising a limit after a cancel, in either language", () => {
    for (const language of ["en", "zh"] as const) {
      const text = stopSummary({ reason: "cancelled", detail: "x", language, findings: [] }).content as string;
      expect(text).not.toMatch(RAISE);
      // Only the limits a person can raise say so; a loop or failing tools are asked again differently.
      const advice = reasons.map((reason) =>
        RAISE.test(stopSummary({ reason, detail: "x", language, findings: [] }).content as string),
      );
      expect(advice).toEqual([true, true, true, false, false]);
    }
  });

  it("lists the run's successful observations when no findings are passed (a stop while paused)", () => {
    const found = toolMessage({
      callId: "c1",
      tool: "read_a",
      observation: { ok: true, data: { found: ["a"] } },
      durationMs: 1,
      attempts: 1,
      maxChars: 1000,
    });
    const messages = [
      new HumanMessage({ id: "h1", content: "look and restart" }),
      new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "read_a", args: {} }] }),
      found,
      new AIMessage({ id: "a2", content: "", tool_calls: [{ id: "c2", name: "write_high", args: {} }] }),
    ];
    const [cancelled, summary] = stopWithAnswer({
      messages,
      stop: { reason: "cancelled", detail: "stopped while it waited" },
      language: "en",
      maxChars: 1000,
    });
    expect((cancelled as unknown as { tool_call_id: string }).tool_call_id).toBe("c2");
    const text = summary!.content as string;
    expect(text).toContain("What I found so far:\n- read_a: ");
    expect(text).not.toContain("Nothing useful was found");
    expect(text).not.toMatch(RAISE);
  });
});

describe.skipIf(!hasChromium)("Stop on the page (6)", () => {
  let browser: Browser;
  let server: TestServer;
  beforeAll(async () => {
    browser = await launchChromium(["--disable-quic"]);
    server = await startTestServer({
      model: new ScriptedChatModel({
        script: [
          callsMessage([{ name: "read_a", args: { query: "pay" } }]),
          callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" } }]),
          answerMessage("unused"),
        ],
      }),
      tools: () => testTools(),
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("keeps Stop after the 'answer it first' notice, and its message lists what was found without advising a limit", async () => {
    const page = await browser.newPage({ locale: "en-US" });
    await page.goto(`${server.url}/`);
    await page.getByLabel("Your question").fill("look at pay, then restart it");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.locator("form.pause").waitFor();
    const stop = page.getByRole("button", { name: "Stop" });
    expect(await stop.isVisible()).toBe(true);

    // A new message while the pause waits is refused: the notice says so and Stop stays.
    await page.getByLabel("Your question").fill("something else");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.getByText("This conversation is waiting for your answer above; answer it first.").waitFor();
    expect(await stop.isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Send", exact: true }).isEnabled()).toBe(true);

    await stop.click();
    await page.locator(".run[data-state=cancelled]").waitFor();
    const answer = await page.locator(".bubble.assistant .markdown").last().textContent();
    expect(answer).toContain("The run was cancelled.");
    expect(answer).toContain("What I found so far:");
    expect(answer).toContain("read_a:");
    expect(answer).not.toContain("Nothing useful was found");
    expect(answer).not.toMatch(RAISE);
    expect(await stop.isHidden()).toBe(true);
    await page.close();
  });
});
