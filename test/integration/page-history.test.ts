import { type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage, ScriptedChatModel, type ScriptStep } from "../fixtures/scripted-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { hasChromium, useChromium } from "../fixtures/browser.js";
import { startTestServer } from "../fixtures/http.js";
import { testTools } from "../fixtures/test-tools.js";

const local = { id: "local", role: "operator" as const };
const LONG_ANSWER = Array.from({ length: 25 }, (_, i) => `- finding ${i + 1}: payment-service looked fine here`).join(
  "\n",
);

/** What the page shows of every run: its status line, step labels and answered-pause notes. */
function runsOf(page: Page) {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll(".run"), (run) => ({
      status: run
        .querySelector(".run-status")!
        .textContent!.replace(/ · \d+(\.\d)? (ms|s)(?= ·|$)/, " · <time>")
        .replace(/ · [\d,]+ (tokens|个 token)$/, " · <tokens>"),
      steps: Array.from(run.querySelectorAll(".step-label"), (label) => label.textContent),
      answered: Array.from(run.querySelectorAll(".answered"), (note) => note.textContent),
    })),
  );
}

/** Whether the element's box lies within the viewport. */
const inViewport = (page: Page, selector: string) =>
  page.locator(selector).evaluate((element) => {
    const box = element.getBoundingClientRect();
    return box.top >= 0 && box.top < window.innerHeight;
  });

describe.skipIf(!hasChromium)("a thread's history on the page", () => {
  const suite = useChromium();
  const { servers } = suite;

  async function serverWith(script: ScriptStep[]) {
    const server = await startTestServer({
      model: new ScriptedChatModel({ script, onExhausted: "answer" }),
      tools: () => testTools(),
    });
    servers.push(server);
    return server;
  }

  it("keeps the run status lines and the answered pauses after a reload, and counts the steps it shows (4, 6)", async () => {
    const server = await serverWith([
      callsMessage([
        { name: "read_a", args: { query: "x" } },
        { name: "read_b", args: { query: "y" } },
      ]),
      callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" } }]),
      answerMessage("Restarted **pay** in prod."),
      answerMessage("Hello."),
    ]);
    const page = await suite.browser.newPage({ viewport: { width: 1000, height: 900 }, locale: "en-US" });
    await page.goto(`${server.url}/`);
    await page.getByLabel("Your question").fill("look, then restart pay");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.locator("form.pause button.approve").click();
    await page.locator(".run[data-state=final_answer]").waitFor();
    await page.getByLabel("Your question").fill("hi");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expect.poll(() => page.locator(".run[data-state=final_answer]").count()).toBe(2);

    const live = await runsOf(page);
    expect(live).toEqual([
      {
        // Three model turns, three step boxes: two with calls and the one that answered.
        status: "answered · 3 steps · <time> · <tokens>",
        steps: ["Step 1", "Step 2", "Step 3"],
        answered: ["You answered: write_high: Approve"],
      },
      { status: "answered · 1 step · <time> · <tokens>", steps: ["Step 1"], answered: [] },
    ]);
    expect(await page.locator(".bubble.assistant .markdown strong").textContent()).toBe("pay");

    await page.reload();
    await expect.poll(() => page.locator(".run[data-state=final_answer]").count()).toBe(2);
    expect(await runsOf(page)).toEqual(live);
    expect(await page.locator(".bubble.user p").allTextContents()).toEqual(["look, then restart pay", "hi"]);

    await page.getByRole("button", { name: "中文" }).click();
    await page.getByRole("button", { name: "发送" }).waitFor();
    expect((await runsOf(page)).map((run) => run.status)).toEqual([
      "已回答 · 3 步 · <time> · <tokens>",
      "已回答 · 1 步 · <time> · <tokens>",
    ]);
    expect((await runsOf(page))[0]!.answered).toEqual(["你的回答： write_high: 批准"]);
    await page.close();
  });

  it("opens a long thread at its pending pause on a phone, and brings each new pause into view (3)", async () => {
    const server = await serverWith([
      ...Array.from({ length: 4 }, () => answerMessage(LONG_ANSWER)),
      callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" } }]),
      answerMessage("Rejected, so nothing changed."),
      answerMessage(LONG_ANSWER),
      callsMessage([{ name: "write_high", args: { target: "pay", environment: "staging" } }]),
    ]);
    const threadId = await server.runtime.createThread(local);
    for (const message of ["one", "two", "three", "four", "restart pay"])
      await collectEvents(await server.runtime.startRun({ threadId, message, user: local }));

    const page = await suite.browser.newPage({
      viewport: { width: 390, height: 844 },
      locale: "en-US",
      isMobile: true,
    });
    await page.goto(`${server.url}/?thread=${threadId}`);
    await page.locator("form.pause").waitFor();
    await expect.poll(() => inViewport(page, "form.pause")).toBe(true);
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(1000);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // Answered: the newest step follows into view.
    await page.getByRole("button", { name: "Reject", exact: true }).click();
    await page.getByRole("button", { name: "Confirm reject" }).click();
    await expect.poll(() => page.locator(".run[data-state=final_answer]").count()).toBe(5);
    await expect.poll(() => inViewport(page, ".run:last-of-type .run-status")).toBe(true);

    // Scrolled to the top, then another run pauses: the page brings the new pause into view.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.getByLabel("Your question").fill("one more long one");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expect.poll(() => page.locator(".run[data-state=final_answer]").count()).toBe(6);
    await page.getByLabel("Your question").fill("restart pay in staging");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.locator("form.pause").waitFor();
    await expect.poll(() => inViewport(page, "form.pause")).toBe(true);
    await page.close();
  });
});
