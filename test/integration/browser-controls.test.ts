import { hasChromium, useChromium } from "../fixtures/browser.js";
import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { startTestServer } from "../fixtures/http.js";
import { testTools } from "../fixtures/test-tools.js";
import { leaveUnfinished } from "../fixtures/unfinished-thread.js";

describe.skipIf(!hasChromium)("the page's Stop button and API token", () => {
  const suite = useChromium();
  const { servers } = suite;

  it("stops a running run and marks each unanswered call cancelled", async () => {
    const server = await startTestServer({
      model: new ScriptedChatModel({
        script: [
          callsMessage([
            { name: "read_a", args: { query: "x" } },
            { name: "read_b", args: { query: "y" } },
          ]),
        ],
        onExhausted: "answer",
      }),
      tools: () => testTools({ readDelayMs: 10_000 }),
    });
    servers.push(server);
    const page = await suite.browser.newPage({ locale: "en-US" });
    await page.goto(`${server.url}/`);
    await page.getByLabel("Your question").fill("look up x and y");
    await page.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => page.locator(".call").count()).toBe(2);
    await page.getByRole("button", { name: "Stop" }).click();
    await page.locator(".run[data-state=cancelled]").waitFor();
    const cards = await page
      .locator(".call")
      .evaluateAll((elements) =>
        elements.map((element) => [
          (element as HTMLElement).dataset.errorCode,
          element.querySelector(".call-state")?.textContent?.split(" · ")[0],
        ]),
      );
    expect(cards).toEqual([
      ["cancelled", "cancelled"],
      ["cancelled", "cancelled"],
    ]);
    expect(await page.getByRole("button", { name: "Stop" }).isHidden()).toBe(true);
    await page.close();
  });

  it("stops a run that waits for an approval, without running the action", async () => {
    const writes: string[] = [];
    const server = await startTestServer({
      model: new ScriptedChatModel({
        script: [callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" } }])],
      }),
      tools: () => testTools({ writes }),
    });
    servers.push(server);
    const page = await suite.browser.newPage({ locale: "en-US" });
    await page.goto(`${server.url}/`);
    await page.getByLabel("Your question").fill("restart pay");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("button", { name: "Approve" }).waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByText("The run was cancelled.").waitFor();
    expect(await page.locator("form.pause").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Stop" }).isHidden()).toBe(true);
    expect(
      await page
        .locator(".call")
        .evaluateAll((elements) => elements.map((element) => (element as HTMLElement).dataset.errorCode)),
    ).toEqual(["cancelled"]);
    expect(writes).toEqual([]);
    await page.close();
  });

  it("offers to continue a run whose server stopped mid-step, and finishes it", async () => {
    const server = await startTestServer({
      model: new ScriptedChatModel({ script: [answerMessage("Continued after the restart.")] }),
      tools: () => testTools(),
    });
    servers.push(server);
    const threadId = await server.runtime.createThread({ id: "local", role: "operator" });
    await leaveUnfinished(server.graph, threadId);
    const page = await suite.browser.newPage({ locale: "en-US" });
    await page.goto(`${server.url}/?thread=${threadId}`);
    await page.getByText("The server stopped in the middle of this conversation's last run.").waitFor();
    await page.getByRole("button", { name: "Continue that run" }).click();
    await page.getByText("Continued after the restart.").waitFor();
    expect(await page.locator("#notice").isHidden()).toBe(true);
    expect((await server.runtime.getThread(threadId, { id: "local", role: "operator" })).unfinished).toBeUndefined();
  });

  it("asks for the API token when the server requires one, then works with it", async () => {
    const server = await startTestServer({
      auth: { tokens: new Map([["page-token-0001", { id: "pat", role: "operator" }]]) },
    });
    servers.push(server);
    const page = await suite.browser.newPage({ locale: "en-US" });
    await page.goto(`${server.url}/`);
    await page.getByLabel("Your question").fill("check the payment service errors in prod");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByLabel("API token").fill("page-token-0001");
    expect(await page.getByLabel("Your question").inputValue()).toBe("check the payment service errors in prod");
    await page.getByRole("button", { name: "Use token" }).click();
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".run[data-state]:not([data-state=running])").waitFor();
    expect(await page.locator(".bubble.user p").allTextContents()).toEqual([
      "check the payment service errors in prod",
    ]);
    await page.close();
  });
});
