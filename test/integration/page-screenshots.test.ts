import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { hasChromium, launchChromium, openThreadPage } from "../fixtures/browser.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";

/**
 * The README's screenshots of the page, taken over the offline demo model and the demo tools.
 * Written to the ignored test/artifacts/ (a test run never changes the checkout); with
 * OPSPILOT_UPDATE_DOCS=1 they replace the copies in docs/.
 */
const DOCS = fileURLToPath(
  new URL(process.env.OPSPILOT_UPDATE_DOCS === "1" ? "../../docs/" : "../artifacts/", import.meta.url),
);
const local = { id: "local", role: "operator" as const };
const METRICS = "What are the payment-service metrics in prod?";
const RESTART = "Restart payment-service in prod";
const APPROVE = "Approve: restart_service service=payment-service environment=prod";
const VIEWPORTS = [
  [1280, 800],
  [390, 844],
] as const;

describe.skipIf(!hasChromium)("the page's README screenshots (demo model, demo tools)", () => {
  let server: TestServer;
  let browser: Browser;
  let answeredThread: string;
  let pausedThread: string;
  beforeAll(async () => {
    mkdirSync(DOCS, { recursive: true });
    server = await startTestServer();
    // The answered thread first, so that the list shows the paused one on top, "waiting for you".
    answeredThread = await server.runtime.createThread(local);
    await collectEvents(await server.runtime.startRun({ threadId: answeredThread, message: METRICS, user: local }));
    pausedThread = await server.runtime.createThread(local);
    await collectEvents(await server.runtime.startRun({ threadId: pausedThread, message: RESTART, user: local }));
    browser = await launchChromium(["--disable-quic"]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const open = (context: BrowserContext, threadId: string) => openThreadPage(context, server.url, threadId);

  for (const [width, height] of VIEWPORTS) {
    it(`shows a paused restart_service, drawn as high risk, at ${width} px`, async () => {
      const context = await browser.newContext({
        viewport: { width, height },
        locale: "en-US",
        colorScheme: "light",
        isMobile: width < 500,
      });
      const page = await open(context, pausedThread);
      const pause = page.locator("form.pause");
      await pause.waitFor();
      expect(await pause.getAttribute("class")).toBe("pause risky");
      expect(await pause.locator("h3").textContent()).toBe("High-risk action: waiting for your approval");
      expect(await pause.locator(".pause-call.risky .risk-badge").textContent()).toBe("High risk");
      expect(await pause.locator("button.approve").textContent()).toBe(APPROVE);
      expect(JSON.parse((await pause.locator(".exact-args").textContent())!)).toEqual({
        service: "payment-service",
        environment: "prod",
      });
      expect(await page.locator(".call[data-risk=high] .tool").textContent()).toBe("restart_service");
      expect(await page.locator(".bubble.user p").textContent()).toBe(RESTART);
      expect(await page.locator(".thread-list li").first().textContent()).toContain(RESTART);
      // Nothing ran yet: the restart waits for the click.
      expect(
        await server.store.countActions({ action: "restart", service: "payment-service", environment: "prod" }),
      ).toBe(0);

      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await pause.scrollIntoViewIfNeeded();
      await page.waitForTimeout(100);
      expect(await pause.locator("button.approve").isVisible()).toBe(true);
      await page.screenshot({ path: `${DOCS}page-paused-${width}.png` });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await context.close();
    });

    it(`shows the demo model's metrics answer with its Markdown table at ${width} px`, async () => {
      const context = await browser.newContext({
        viewport: { width, height },
        locale: "en-US",
        colorScheme: "light",
        isMobile: width < 500,
      });
      const page = await open(context, answeredThread);
      const answer = page.locator(".bubble.assistant .markdown").last();
      const table = answer.locator("table");
      await table.waitFor();
      expect(await page.locator(".run").last().getAttribute("data-state")).toBe("final_answer");
      expect(await page.locator(".call .tool").allTextContents()).toEqual(["search_resource", "get_service_metrics"]);
      expect(await answer.locator("p").first().textContent()).toMatch(/^\[demo model\] payment-service in prod is/);
      expect(await table.locator("th").allTextContents()).toEqual(["metric", "value"]);
      const rows = await table
        .locator("tbody tr")
        .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent)));
      expect(rows.length).toBeGreaterThanOrEqual(5);
      expect(rows.map(([name]) => name)).toEqual(
        expect.arrayContaining(["error rate", "p95 latency", "requests per second", "CPU", "memory"]),
      );
      expect(rows.every((row) => row.length === 2 && row[1] !== "")).toBe(true);

      // At 1280 px the whole thread, question to table; on a phone, the answer and its whole table.
      const phone = width < 500;
      if (phone) await answer.evaluate((element) => element.closest(".bubble")!.scrollIntoView({ block: "start" }));
      // (Scrolled to the end, where the composer sits below the answer instead of over it.)
      else await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.waitForTimeout(100);
      expect(await table.isVisible()).toBe(true);
      await page.screenshot({ path: `${DOCS}page-answer-${width}.png`, fullPage: !phone });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await context.close();
    });
  }
});
