import { type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../../src/models/providers/openai-model.js";
import { hasChromium, launchChromium } from "../fixtures/browser.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";
import { slowOpenAIServer, textAnswerEvents, type SlowOpenAIServer } from "../fixtures/streaming-model.js";

const FRAGMENTS = [
  "**Payment** errors ",
  "in prod:\n\n",
  "- PAY-TIMEOUT: 42\n",
  "- DB-CONN: 3\n\n",
  "Look at the gateway first.",
];
const GAP_MS = 250;

describe.skipIf(!hasChromium)("a live answer on the page", { timeout: 30_000 }, () => {
  let model: SlowOpenAIServer;
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    model = await slowOpenAIServer(
      textAnswerEvents(FRAGMENTS, { prompt_tokens: 200, completion_tokens: 30, total_tokens: 230 }),
      GAP_MS,
    );
    server = await startTestServer({
      model: createOpenAIChatModel({
        model: "slow-model",
        baseURL: model.baseURL,
        apiKey: "sk-test",
        timeoutMs: 10_000,
        maxRetries: 0,
      }),
    });
    browser = await launchChromium(["--disable-quic"]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await model?.close();
  });

  it("shows the answer growing before run_finished, then the complete message as Markdown", async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 800 }, locale: "en-US" });
    await page.goto(`${server.url}/`);
    // Every state of the streaming bubble, with whether the run had finished when it was seen.
    await page.evaluate(() => {
      const w = window as unknown as { streamed: Array<{ text: string; finished: boolean }> };
      w.streamed = [];
      new MutationObserver(() => {
        const bubble = document.querySelector(".bubble.streaming .streamed");
        if (bubble)
          w.streamed.push({
            text: bubble.textContent ?? "",
            finished: document.querySelector(".run[data-state]:not([data-state=running])") !== null,
          });
      }).observe(document.getElementById("log")!, { childList: true, subtree: true, characterData: true });
    });
    await page.getByLabel("Your question").fill("how is the payment service?");
    await page.getByRole("button", { name: "Send", exact: true }).click();

    // Part of the answer is on the page while the run is still running.
    await page.locator(".bubble.streaming").getByText("**Payment** errors").waitFor();
    expect(await page.locator(".run").getAttribute("data-state")).toBe("running");
    expect(await page.locator(".bubble.streaming").getAttribute("aria-busy")).toBe("true");

    await page.locator(".run[data-state=final_answer]").waitFor();
    const streamed = await page.evaluate(
      () => (window as unknown as { streamed: Array<{ text: string; finished: boolean }> }).streamed,
    );
    const lengths = [...new Set(streamed.map((entry) => entry.text.length))];
    expect(lengths.length).toBeGreaterThanOrEqual(3);
    expect(streamed.every((entry) => !entry.finished)).toBe(true);
    expect(FRAGMENTS.join("").startsWith(streamed.at(-1)!.text)).toBe(true);

    // The recorded message replaced the live text: one bubble, rendered.
    expect(await page.locator(".bubble.streaming").count()).toBe(0);
    expect(await page.locator(".bubble.assistant").count()).toBe(1);
    const answer = page.locator(".bubble.assistant .markdown");
    expect(await answer.locator("strong").textContent()).toBe("Payment");
    expect(await answer.locator("li").allTextContents()).toEqual(["PAY-TIMEOUT: 42", "DB-CONN: 3"]);
    expect(await page.locator(".step-label").allTextContents()).toEqual(["Step 1"]);
    await page.close();
  });
});
