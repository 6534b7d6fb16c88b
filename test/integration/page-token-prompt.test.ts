import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import type { ServerAuth } from "../../src/server/auth/auth.js";
import { hasChromium, launchChromium } from "../fixtures/browser.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";

const TOKEN = "operator-token-prompt-0001";
const OTTO = { id: "otto", role: "operator" as const };
const AUTH: ServerAuth = { tokens: new Map([[TOKEN, OTTO]]) };

describe.skipIf(!hasChromium)("the page on a server that requires tokens", () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer({ auth: AUTH });
    const threadId = await server.runtime.createThread(OTTO);
    await collectEvents(await server.runtime.startRun({ threadId, message: "check payment-service", user: OTTO }));
    browser = await launchChromium(["--disable-quic"]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("asks for a token as soon as it opens, before anything is sent, and lists the threads once given one", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: "en-US" });
    const sent: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") sent.push(request.url());
    });
    await page.goto(`${server.url}/`);
    await page.locator("#token-form:not([hidden])").waitFor();
    expect(await page.locator("#notice").textContent()).toBe("This server needs an API token.");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("token");
    expect(sent).toEqual([]);

    await page.locator("#token").fill(TOKEN);
    await page.locator("#token-form button[type=submit]").click();
    await expect
      .poll(() => page.locator(".thread-list li .thread-title").allTextContents())
      .toEqual(["check payment-service"]);
    expect(await page.locator("#token-form").isHidden()).toBe(true);
    expect(await page.locator("#notice").isHidden()).toBe(true);
    await page.close();
  });
});
