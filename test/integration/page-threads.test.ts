import { type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { hasChromium, launchChromium } from "../fixtures/browser.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";
import { testTools } from "../fixtures/test-tools.js";

const local = { id: "local", role: "operator" as const };

/** The thread list as shown: title, badge and whether it is the open thread. */
const listOf = (page: Page) =>
  page.locator(".thread-list li").evaluateAll((items) =>
    items.map((item) => ({
      title: item.querySelector(".thread-title")?.textContent,
      badge: item.querySelector(".badge")?.textContent ?? null,
      current: item.querySelector("a")?.getAttribute("aria-current") === "page",
    })),
  );

describe.skipIf(!hasChromium)("the thread list on the page", () => {
  let server: TestServer;
  let browser: Browser;
  let paused: string;
  beforeAll(async () => {
    server = await startTestServer({
      model: new ScriptedChatModel({
        script: [
          callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" } }]),
          answerMessage("Nothing wrong with x."),
          answerMessage("Nothing wrong with y either."),
          answerMessage("Restarted."),
          callsMessage([{ name: "write_high", args: { target: "pay", environment: "staging" } }]),
        ],
      }),
      tools: () => testTools(),
    });
    // The paused thread is the oldest; two newer threads were answered after it.
    paused = await server.runtime.createThread(local);
    await collectEvents(
      await server.runtime.startRun({ threadId: paused, message: "restart pay in prod", user: local }),
    );
    for (const message of ["check x", "check y"]) {
      const threadId = await server.runtime.createThread(local);
      await new Promise((resolve) => setTimeout(resolve, 15));
      await collectEvents(await server.runtime.startRun({ threadId, message, user: local }));
    }
    browser = await launchChromium(["--disable-quic"]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows the paused thread first, marked as waiting, and opens it from the list", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: "en-US" });
    await page.goto(`${server.url}/`);
    await expect.poll(() => page.locator(".thread-list li").count()).toBe(3);
    expect(await listOf(page)).toEqual([
      { title: "restart pay in prod", badge: "waiting for you", current: false },
      { title: "check y", badge: null, current: false },
      { title: "check x", badge: null, current: false },
    ]);
    expect(await page.locator("#waiting-count").textContent()).toBe("1 waiting");

    await page.getByRole("link", { name: /restart pay in prod/ }).click();
    await page.locator("form.pause").waitFor();
    expect(new URL(page.url()).searchParams.get("thread")).toBe(paused);
    expect((await listOf(page))[0]).toEqual({ title: "restart pay in prod", badge: "waiting for you", current: true });

    // Answered: the thread is no longer waiting, and the newest.
    await page.locator("form.pause button.approve").click();
    await page.locator(".run[data-state=final_answer]").waitFor();
    await expect
      .poll(() => listOf(page))
      .toEqual([
        { title: "restart pay in prod", badge: null, current: true },
        { title: "check y", badge: null, current: false },
        { title: "check x", badge: null, current: false },
      ]);
    expect(await page.locator("#waiting-count").isHidden()).toBe(true);
    await page.close();
  });

  it("says 等你处理 in Chinese, and folds the list into one line on a phone", async () => {
    const threadId = await server.runtime.createThread(local);
    await collectEvents(await server.runtime.startRun({ threadId, message: "重启 pay", user: local }));
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: "zh-CN", isMobile: true });
    await page.goto(`${server.url}/`);
    await page.locator("#waiting-count:not([hidden])").waitFor();
    expect(await page.locator("#waiting-count").textContent()).toBe("1 个等你处理");
    expect(await page.locator("#threads-panel").getAttribute("open")).toBeNull();
    await page.getByText("对话", { exact: true }).click();
    expect((await listOf(page))[0]).toEqual({ title: "重启 pay", badge: "等你处理", current: false });
    await page.close();
  });
});
