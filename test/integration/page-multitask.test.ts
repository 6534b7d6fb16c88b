import { ToolMessage } from "@langchain/core/messages";
import { type Browser, type Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { hasChromium, useChromium } from "../fixtures/browser.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";
import { answerMessage, callsMessage, ScriptedChatModel, type ScriptedCall } from "../fixtures/scripted-model.js";
import { Gate, lastAsk } from "../fixtures/gate-tool.js";
import { testTools } from "../fixtures/test-tools.js";

const ALICE_TOKEN = "alice-multitask-token-01";
const VERA_TOKEN = "vera-multitask-token-01";
const auth = {
  tokens: new Map([
    [ALICE_TOKEN, { id: "alice", role: "operator" as const }],
    [VERA_TOKEN, { id: "vera", role: "viewer" as const }],
  ]),
};

/** "slow …" waits at the gate, "risky …" proposes a high-risk write, "ask …" asks for a ticket; else an answer. */
function respond(call: ScriptedCall) {
  const ask = lastAsk(call.messages);
  if (ToolMessage.isInstance(call.messages.at(-1))) return answerMessage(`done: ${ask}`);
  if (ask.startsWith("slow")) return callsMessage([{ name: "gate", args: { query: ask } }]);
  if (ask.startsWith("risky"))
    return callsMessage([{ name: "write_high", args: { target: "payment-service", environment: "prod" } }]);
  if (ask.startsWith("ask")) return callsMessage([{ name: "ask_midway", args: {} }]);
  return answerMessage(`answer: ${ask}`);
}

async function openPage(browser: Browser, url: string, options: { token: string; locale?: string; width?: number }) {
  const page = await browser.newPage({
    viewport: { width: options.width ?? 1000, height: 900 },
    locale: options.locale ?? "en-US",
  });
  await page.addInitScript((token) => window.localStorage.setItem("opspilot.token", token), options.token);
  await page.goto(url);
  return page;
}

async function ask(page: Page, message: string, labels = { question: "Your question", send: "Send" }) {
  await page.getByLabel(labels.question).fill(message);
  await page.getByRole("button", { name: labels.send, exact: true }).click();
}

/** The conversation column in order: each user message (with its queued marker) and each run's state. */
function logOutline(page: Page) {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll("#log > .bubble.user, #log > .run")).map((element) => {
      if (element.classList.contains("run")) return `run:${(element as HTMLElement).dataset.state}`;
      const marker = element.querySelector(".queued-state")?.textContent;
      return `you:${element.querySelector("p")!.textContent}${marker ? ` (${marker})` : ""}`;
    }),
  );
}

const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? "");
const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? "");
const answers = async (page: Page) =>
  (await page.locator(".bubble.assistant .markdown").allTextContents()).map((text) => text.trim());

describe.skipIf(!hasChromium)("a message for a busy or paused thread, on the page", () => {
  const suite = useChromium();
  const gate = new Gate();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      model: new ScriptedChatModel({ script: Array.from({ length: 80 }, () => respond) }),
      tools: () => [gate.tool(), ...testTools()],
      auth,
      rateLimitPerMinute: 0,
    });
    suite.servers.push(server);
  });

  it("interrupts a pause: the choice, then the pause closes as superseded and the new message is answered", async () => {
    const page = await openPage(suite.browser, `${server.url}/`, { token: ALICE_TOKEN });
    await ask(page, "risky restart");
    await page.locator("form.pause").waitFor();

    await ask(page, "what changed?");
    const choice = page.getByRole("group", {
      name: "This conversation is waiting for your answer above; answer it first. Or choose what happens to your message:",
    });
    await choice.waitFor();
    expect(await choice.getByRole("button").allTextContents()).toEqual([
      "Wait in queue",
      "Interrupt and send",
      "Cancel",
    ]);
    expect(await focusedText(page)).toBe("Wait in queue");
    const interrupt = choice.getByRole("button", { name: "Interrupt and send" });
    const hint = await interrupt.evaluate(
      (button) => document.getElementById(button.getAttribute("aria-describedby")!)?.textContent,
    );
    expect(hint).toBe("Closes the pause above (its calls are rejected), then sends your message.");

    await interrupt.click();
    await page.locator(".run[data-state=final_answer]").waitFor();
    expect(await choice.isHidden()).toBe(true);
    expect(await focusedId(page)).toBe("message");
    expect(await page.getByLabel("Your question").inputValue()).toBe("");
    const closed = async () => ({
      outline: await logOutline(page),
      forms: await page.locator("form.pause").count(),
      notes: await page.locator("p.answered").allTextContents(),
      cards: await page.locator(".call[data-error-code=rejected_by_user] .summary").allTextContents(),
      answer: (await answers(page)).at(-1),
    });
    const expected = {
      outline: ["you:risky restart", "run:cancelled", "you:what changed?", "run:final_answer"],
      forms: 0,
      notes: ["You answered: write_high: Reject (superseded by a new message)"],
      cards: ["Rejected by alice: superseded by a new message"],
      answer: "answer: what changed?",
    };
    expect(await closed()).toEqual(expected);
    // The recorded events draw the same after a reload.
    await page.reload();
    await page.locator(".run[data-state=final_answer]").waitFor();
    expect(await closed()).toEqual(expected);
    await page.close();
  });

  it("queues messages during a run (Escape and Cancel keep the text), shows their places, then their answers in order", async () => {
    gate.close();
    const page = await openPage(suite.browser, `${server.url}/`, { token: ALICE_TOKEN, width: 390 });
    await ask(page, "slow one");
    await gate.entered;
    await page.locator(".run[data-state=running]").waitFor();
    const box = page.getByLabel("Your question");
    const choice = page.getByRole("group", {
      name: "This conversation is still running. What should happen to your message?",
    });

    await box.fill("slow second");
    await box.press("Enter");
    await choice.waitFor();
    expect(await focusedText(page)).toBe("Wait in queue");
    // At phone width the choice fits the screen and the page does not scroll sideways.
    const fits = await page.evaluate(() => {
      const buttons = Array.from(document.querySelectorAll("#send-choice button"));
      return {
        inside: buttons.every((button) => button.getBoundingClientRect().right <= window.innerWidth),
        scrollWidth: document.documentElement.scrollWidth,
      };
    });
    expect(fits).toEqual({ inside: true, scrollWidth: 390 });
    await page.keyboard.press("Escape");
    await choice.waitFor({ state: "hidden" });
    expect(await box.inputValue()).toBe("slow second");
    expect(await focusedId(page)).toBe("message");

    await page.getByRole("button", { name: "Send", exact: true }).click();
    await choice.getByRole("button", { name: "Cancel" }).click();
    await choice.waitFor({ state: "hidden" });
    expect(await box.inputValue()).toBe("slow second");
    expect(await focusedId(page)).toBe("message");
    expect(await logOutline(page)).toEqual(["you:slow one", "run:running"]);

    await page.getByRole("button", { name: "Send", exact: true }).click();
    await choice.getByRole("button", { name: "Wait in queue" }).click();
    await page.getByText("queued · position 1").waitFor();
    await ask(page, "third question");
    await choice.getByRole("button", { name: "Wait in queue" }).click();
    await page.getByText("queued · position 2").waitFor();
    expect(await logOutline(page)).toEqual([
      "you:slow one",
      "run:running",
      "you:slow second (queued · position 1)",
      "you:third question (queued · position 2)",
    ]);

    // Another tab draws the queue from the thread view.
    const threadId = new URL(page.url()).searchParams.get("thread")!;
    const other = await openPage(suite.browser, `${server.url}/?thread=${threadId}`, { token: ALICE_TOKEN });
    await other.getByText("queued · position 2").waitFor();
    expect(await logOutline(other)).toEqual(await logOutline(page));

    // The first run ends and the second holds: the third waits below the second's run, now first in line.
    gate.open();
    gate.close();
    await gate.entered;
    for (const tab of [page, other])
      await expect
        .poll(() => logOutline(tab), { timeout: 10_000 })
        .toEqual([
          "you:slow one",
          "run:final_answer",
          "you:slow second",
          "run:running",
          "you:third question (queued · position 1)",
        ]);
    gate.open();
    const done = [
      "you:slow one",
      "run:final_answer",
      "you:slow second",
      "run:final_answer",
      "you:third question",
      "run:final_answer",
    ];
    for (const tab of [page, other]) {
      await expect.poll(() => logOutline(tab), { timeout: 15_000 }).toEqual(done);
      expect(await answers(tab)).toEqual(["done: slow one", "done: slow second", "answer: third question"]);
    }
    await other.close();
    await page.close();
  });

  it("interrupts a running run: it ends cancelled and the new message is answered after it", async () => {
    gate.close();
    const page = await openPage(suite.browser, `${server.url}/`, { token: ALICE_TOKEN });
    await ask(page, "slow and long");
    await gate.entered;
    await ask(page, "stop that and say hi");
    const choice = page.getByRole("group", {
      name: "This conversation is still running. What should happen to your message?",
    });
    await choice.getByRole("button", { name: "Interrupt and send" }).click();
    await expect
      .poll(() => logOutline(page), { timeout: 10_000 })
      .toEqual(["you:slow and long", "run:cancelled", "you:stop that and say hi", "run:final_answer"]);
    expect((await answers(page)).at(-1)).toBe("answer: stop that and say hi");
    expect(await page.locator(".call[data-error-code=cancelled] .tool").allTextContents()).toEqual(["gate"]);
    await page.close();
  });

  it("says it in Chinese, leaves Interrupt out for a viewer, and shows the refusal when the page could not tell", async () => {
    const page = await openPage(suite.browser, `${server.url}/`, { token: VERA_TOKEN, locale: "zh-CN" });
    const zh = { question: "你的问题", send: "发送" };
    await ask(page, "ask for a ticket", zh);
    await page.locator("form.pause").waitFor();
    await ask(page, "另一个问题", zh);
    const paused = "此对话正在等待你回答上面的问题，请先回答。或者选择如何处理你的消息：";
    const choice = page.getByRole("group", { name: paused });
    await choice.waitFor();
    // Viewers are refused the incident list, so the page knows not to offer the interrupt.
    expect(await choice.getByRole("button").allTextContents()).toEqual(["排队等待", "取消"]);
    const threadId = new URL(page.url()).searchParams.get("thread")!;
    await page.close();

    // A page that cannot tell (the incident list answered) offers it, and the server's refusal is said plainly.
    const blind = await suite.browser.newPage({ locale: "zh-CN" });
    await blind.addInitScript((token) => window.localStorage.setItem("opspilot.token", token), VERA_TOKEN);
    await blind.route("**/api/incidents", (route) => route.fulfill({ json: { incidents: [] } }));
    // A message whose turn was refused stays in the thread view with why.
    await blind.route(`**/api/threads/${threadId}`, async (route) => {
      const view = (await (await route.fetch()).json()) as Record<string, unknown>;
      const failed = {
        messageId: "refused-1",
        content: "早先的问题",
        strategy: "enqueue",
        queuedAt: new Date().toISOString(),
        userId: "vera",
        failed: { code: "quota_exceeded", message: "The daily run quota is spent." },
      };
      await route.fulfill({ json: { ...view, queued: [...((view.queued as unknown[]) ?? []), failed] } });
    });
    await blind.goto(`${server.url}/?thread=${threadId}`);
    await blind.locator("form.pause").waitFor();
    expect(await logOutline(blind)).toEqual([
      "you:ask for a ticket",
      "run:interrupted",
      "you:早先的问题 (未发送：The daily run quota is spent.)",
    ]);
    await ask(blind, "另一个问题", zh);
    const offered = blind.getByRole("group", { name: paused });
    await offered.getByRole("button", { name: "打断并发送" }).click();
    await offered.getByText("你的角色不能打断此对话，请选择排队等待。").waitFor();
    expect(await offered.getByRole("button").allTextContents()).toEqual(["排队等待", "取消"]);
    expect(await blind.getByLabel("你的问题").inputValue()).toBe("另一个问题");
    expect(await blind.locator("form.pause").count()).toBe(1);

    await offered.getByRole("button", { name: "排队等待" }).click();
    await blind.getByText("排队中 · 第 1 位").waitFor();
    expect(await logOutline(blind)).toEqual([
      "you:ask for a ticket",
      "run:interrupted",
      "you:早先的问题 (未发送：The daily run quota is spent.)",
      "you:另一个问题 (排队中 · 第 1 位)",
    ]);
    // The page polls the thread: a handler still fetching when the page closes would reject after the test.
    await blind.unrouteAll({ behavior: "ignoreErrors" });
    await blind.close();
  });
});
