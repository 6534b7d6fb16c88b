import { AIMessage } from "@langchain/core/messages";
import { type Browser } from "playwright-core";
import { hasChromium, launchChromium } from "../fixtures/browser.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptedChatModel } from "../fixtures/scripted-model.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";
import { testTools } from "../fixtures/test-tools.js";

const usage = { input_tokens: 1_000, output_tokens: 200, total_tokens: 1_200 };

describe.skipIf(!hasChromium)("what a run spent, on the page", () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer({
      model: new ScriptedChatModel({
        script: [
          new AIMessage({
            content: "",
            tool_calls: [{ name: "read_a", args: { query: "x" }, type: "tool_call" }],
            usage_metadata: usage,
          }),
          new AIMessage({ content: "Found it.", usage_metadata: usage }),
        ],
      }),
      tools: () => testTools(),
      env: { OPSPILOT_PRICE_INPUT_PER_MTOK: "2", OPSPILOT_PRICE_OUTPUT_PER_MTOK: "8" },
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows the run's tokens and cost in its closing status", async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 800 }, locale: "en-US" });
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(`${server.url}/`);
    await page.getByLabel("Your question").fill("find x");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".run[data-state=final_answer]").waitFor();
    const status = await page.locator(".run[data-state=final_answer] .run-status").textContent();
    // Two steps of 1000 + 200 tokens at $2 and $8 per million: 2 × $0.0036.
    expect(status).toMatch(/ · 2 steps · \d+(\.\d)? (ms|s) · 2,400 tokens · \$0\.0072$/);
    expect(pageErrors).toEqual([]);
  });
});
