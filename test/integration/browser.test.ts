import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, type Page } from "playwright-core";
import { hasChromium, launchChromium } from "../fixtures/browser.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../fixtures/http.js";

const ARTIFACTS = fileURLToPath(new URL("../artifacts/", import.meta.url));
const SEED = "看看支付服务最近报错，顺便对照一下文档里的处理建议";

/** What the page shows of a thread, independent of how it was drawn (live or from history). */
function transcriptOf(page: Page) {
  return page.evaluate(() => ({
    users: Array.from(document.querySelectorAll(".bubble.user p"), (element) => element.textContent),
    answers: Array.from(document.querySelectorAll(".bubble.assistant p"), (element) => element.textContent),
    calls: Array.from(document.querySelectorAll<HTMLElement>(".call"), (card) => [
      card.querySelector(".tool")?.textContent,
      card.dataset.state,
    ]),
  }));
}

describe.skipIf(!hasChromium)("the page in headless Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startTestServer();
    browser = await launchChromium(["--disable-quic"]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows the steps, takes the environment and a restart approval in place, and shows the same history after a reload", async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 }, locale: "zh-CN" });
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(`${server.url}/`);

    await page.getByLabel("你的问题").fill(SEED);
    await page.getByRole("button", { name: "发送" }).click();
    const environment = page.getByLabel("environment");
    await environment.waitFor();
    expect(page.url()).toMatch(/\?thread=[0-9a-f-]{36}$/);
    expect(await transcriptOf(page)).toEqual({
      users: [SEED],
      answers: [],
      calls: [
        ["search_resource", "ok"],
        ["search_docs", "ok"],
        ["search_logs", "waiting"],
      ],
    });
    // The two calls of the first step sit side by side.
    const [resourceBox, docsBox] = await Promise.all([
      page.locator(".call").nth(0).boundingBox(),
      page.locator(".call").nth(1).boundingBox(),
    ]);
    expect(docsBox!.y).toBe(resourceBox!.y);
    expect(docsBox!.x).toBeGreaterThan(resourceBox!.x);
    expect(await page.locator("form.pause").getAttribute("class")).toBe("pause");
    await page.screenshot({ path: `${ARTIFACTS}browser-mid-run.png` });

    await environment.selectOption("prod");
    await page.getByRole("button", { name: "继续" }).click();
    await page.locator(".run[data-state=final_answer]").waitFor();
    await expect
      .poll(() => page.locator(".bubble.assistant p").first().textContent())
      .toMatch(/^【演示模型】.*payment-service/s);

    await page.getByLabel("你的问题").fill("重启支付服务");
    await page.getByRole("button", { name: "发送" }).click();
    const pause = page.locator("form.pause");
    await pause.getByText("restart_service").first().waitFor();
    // The restart misses its environment and is high risk: one form, drawn as risky, whose Approve names the action.
    expect(await pause.getAttribute("class")).toBe("pause risky");
    expect(await pause.locator("h3").textContent()).toBe("高风险操作：等待你的批准");
    expect(await pause.locator(".pause-call.risky .risk-badge").textContent()).toBe("高风险");
    const approve = pause.locator("button.approve");
    expect(await approve.textContent()).toBe("批准：restart_service service=payment-service environment=?");
    await pause.getByLabel("environment").selectOption("prod");
    expect(await approve.textContent()).toBe("批准：restart_service service=payment-service environment=prod");
    expect(
      await pause.evaluate((form) => ({
        frame: getComputedStyle(form).borderTopColor,
        call: getComputedStyle(form.querySelector(".pause-call")!).borderTopColor,
        approve: getComputedStyle(form.querySelector("button.approve")!).backgroundColor,
      })),
    ).toEqual({ frame: "rgb(179, 38, 30)", call: "rgb(179, 38, 30)", approve: "rgb(179, 38, 30)" });
    await pause.screenshot({ path: `${ARTIFACTS}browser-risky-pause.png` });
    await pause
      .getByRole("button", { name: "批准：restart_service service=payment-service environment=prod", exact: true })
      .click();
    await expect.poll(() => page.locator(".run[data-state=final_answer]").count()).toBe(2);
    await expect
      .poll(() => page.locator(".bubble.assistant p").last().textContent())
      .toMatch(/已重启 payment-service（prod）/);
    expect(
      await server.store.countActions({ action: "restart", service: "payment-service", environment: "prod" }),
    ).toBe(1);

    const live = await transcriptOf(page);
    expect(live.users).toEqual([SEED, "重启支付服务"]);
    expect(live.calls.at(-1)).toEqual(["restart_service", "ok"]);
    await page.screenshot({ path: `${ARTIFACTS}browser-finished.png`, fullPage: true });

    await page.reload();
    await expect.poll(() => page.locator(".bubble.assistant").count()).toBe(2);
    expect(await transcriptOf(page)).toEqual(live);
    expect(await page.locator("form.pause").count()).toBe(0);

    await page.getByRole("button", { name: "English" }).click();
    await page.getByRole("button", { name: "Send" }).waitFor();
    expect(await transcriptOf(page)).toEqual(live);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("reopens a paused thread at phone width with its pending form", async () => {
    const threadId = await server.client.createThread();
    await server.client.run(threadId, SEED);
    const page = await browser.newPage({ viewport: { width: 375, height: 740 }, locale: "en-US" });
    await page.goto(`${server.url}/?thread=${threadId}`);
    await page.getByLabel("environment").waitFor();
    expect(await page.getByRole("button", { name: "Continue" }).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.screenshot({ path: `${ARTIFACTS}browser-phone-paused.png`, fullPage: true });
    await page.close();
  });

  it("keeps a paste longer than the server accepts whole, and says why it was not sent", async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 }, locale: "en-US" });
    await page.goto(`${server.url}/`);
    const long = `${"payment-service 502 burst ".repeat(360)}`.trim();
    expect(long.length).toBeGreaterThan(9_000);
    await page.getByLabel("Your question").fill(long);
    expect(await page.getByLabel("Your question").inputValue()).toHaveLength(long.length);
    await page.getByRole("button", { name: "Send" }).click();
    await expect
      .poll(() => page.locator("#notice").textContent())
      .toBe(
        `The message is ${long.length} characters long; at most 8000 are accepted. Shorten it or split it into several messages.`,
      );
    // Nothing was cut and nothing was drawn as sent.
    expect(await page.getByLabel("Your question").inputValue()).toBe(long);
    expect(await page.locator(".bubble.user").count()).toBe(0);
    await page.close();
  });

  it("lets the local user approve an admin-only rollback: one person's machine, one admin", async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 }, locale: "en-US" });
    await page.goto(`${server.url}/`);
    await page.getByLabel("Your question").fill("roll back payment-service in prod");
    await page.getByRole("button", { name: "Send" }).click();
    const pause = page.locator("form.pause");
    await pause.getByText("rollback_deploy").first().waitFor();
    const before = await server.store.countActions({ action: "rollback" });
    await pause.locator("button.approve").click();
    await expect.poll(() => page.locator(".run[data-state=final_answer]").count()).toBe(1);
    expect(await server.store.countActions({ action: "rollback" })).toBe(before + 1);
    expect(await page.locator(".call[data-state=ok] .tool", { hasText: "rollback_deploy" }).count()).toBe(1);
    await page.close();
  });
});
