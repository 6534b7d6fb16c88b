import { type Browser, type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { hasChromium, useChromium } from "../fixtures/browser.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";
import { testTools } from "../fixtures/test-tools.js";

const ALICE_TOKEN = "alice-page-token-01";
const auth = { tokens: new Map([[ALICE_TOKEN, { id: "alice", role: "operator" as const }]]) };

/** A page signed in as alice, in the given locale. */
async function openPage(browser: Browser, server: TestServer, locale = "en-US"): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 }, locale });
  await page.addInitScript((token) => window.localStorage.setItem("opspilot.token", token), ALICE_TOKEN);
  await page.goto(`${server.url}/`);
  return page;
}

async function ask(page: Page, message: string, labels = { question: "Your question", send: "Send" }) {
  await page.getByLabel(labels.question).fill(message);
  await page.getByRole("button", { name: labels.send, exact: true }).click();
}

describe.skipIf(!hasChromium)("answering pauses on the page", () => {
  const suite = useChromium();
  const { servers } = suite;

  async function serverWith(
    script: ReturnType<typeof callsMessage>[],
    writes: string[] = [],
    model?: ScriptedChatModel,
  ) {
    const server = await startTestServer({
      model: model ?? new ScriptedChatModel({ script, onExhausted: "answer" }),
      tools: () => testTools({ writes }),
      auth,
    });
    servers.push(server);
    return server;
  }

  it("shows the args that ran after an edit, with the change and who made it, live and after a reload (1)", async () => {
    const writes: string[] = [];
    const server = await serverWith(
      [callsMessage([{ name: "write_high", args: { target: "payment-service", environment: "prod" } }])],
      writes,
    );
    const page = await openPage(suite.browser, server);
    await ask(page, "restart payment-service");
    const pause = page.locator("form.pause");
    await pause.getByRole("button", { name: "Edit", exact: true }).click();
    const editor = pause.getByLabel("Arguments (JSON)");
    await editor.fill(JSON.stringify({ target: "payment-service", environment: "staging" }));
    await pause.getByRole("button", { name: "Continue" }).click();
    await page.locator(".run[data-state=final_answer]").waitFor();

    const card = page.locator(".call[data-state=ok]");
    const expected = {
      args: '{"target":"payment-service","environment":"staging"}',
      decision: "environment: prod → staging · edited by alice",
      summary: '{"changed":"payment-service","environment":"staging"}',
    };
    const cardText = () =>
      card.evaluate((element) => ({
        args: element.querySelector(".args")!.textContent,
        decision: element.querySelector(".decision")!.textContent,
        summary: element.querySelector(".summary")!.textContent,
      }));
    expect(await cardText()).toEqual(expected);
    expect(writes).toEqual([expect.stringMatching(/^write_high:payment-service:staging:/)]);
    expect(await page.locator("p.answered").textContent()).toBe(
      "You answered: write_high: Edit (environment: prod → staging)",
    );

    // The recorded events carry what the page needs, so a reload shows the same card and note.
    await page.reload();
    await page.locator(".run[data-state=final_answer]").waitFor();
    expect(await cardText()).toEqual(expected);
    expect(await page.locator("p.answered").textContent()).toBe(
      "You answered: write_high: Edit (environment: prod → staging)",
    );
    await page.close();
  });

  it("puts the edit on the recorded tool_result and on the thread view's tool message (1)", async () => {
    const server = await serverWith([
      callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" } }]),
    ]);
    const user = { id: "alice", role: "operator" as const };
    const threadId = await server.runtime.createThread(user);
    const paused = await collectEvents(await server.runtime.startRun({ threadId, message: "restart pay", user }));
    const pause = paused.find((event) => event.type === "loop_interrupt")!;
    const callId = (pause as { calls: Array<{ callId: string }> }).calls[0]!.callId;
    const resumed = await collectEvents(
      await server.runtime.resumeRun({
        threadId,
        user,
        resume: { decisions: [{ callId, action: "edit", args: { target: "pay", environment: "staging" } }] },
      }),
    );
    const result = resumed.find((event) => event.type === "tool_result");
    expect(result).toMatchObject({
      args: { target: "pay", environment: "staging" },
      decision: { action: "edit", by: "alice", changes: [{ field: "environment", before: "prod", after: "staging" }] },
    });
    const view = await server.runtime.getThread(threadId, user);
    expect(view.messages.find((message) => message.role === "tool")).toMatchObject({
      args: { target: "pay", environment: "staging" },
      decision: { action: "edit", by: "alice", changes: [{ field: "environment", before: "prod", after: "staging" }] },
    });
  });

  it("opens the reason box on the first Reject click and sends the reason with the confirm (2)", async () => {
    const writes: string[] = [];
    const model = new ScriptedChatModel({
      script: [callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" } }])],
      onExhausted: "answer",
    });
    const server = await serverWith([], writes, model);
    const page = await openPage(suite.browser, server);
    await ask(page, "restart pay");
    const pause = page.locator("form.pause");
    await pause.getByRole("button", { name: "Reject", exact: true }).click();
    // Nothing was sent: the box for the reason is open, focused, with its own confirm button.
    const reason = pause.getByLabel("Why (optional)");
    expect(await reason.isVisible()).toBe(true);
    expect(await reason.evaluate((input) => input === document.activeElement)).toBe(true);
    expect(await page.locator(".run[data-state]:not([data-state=running])").getAttribute("data-state")).toBe(
      "interrupted",
    );
    await reason.fill("not during peak hours");
    await pause.getByRole("button", { name: "Confirm reject" }).click();
    await page.locator(".run[data-state=final_answer]").waitFor();
    expect(await page.locator(".call .summary").textContent()).toBe("Rejected by alice: not during peak hours");
    expect(await page.locator("p.answered").textContent()).toBe(
      "You answered: write_high: Reject (not during peak hours)",
    );
    expect(writes).toEqual([]);
    const threadId = new URL(page.url()).searchParams.get("thread")!;
    const records = await server.runtime.getRecords(threadId, { id: "alice", role: "operator" }, { limit: 10 });
    expect(records.decisions).toMatchObject([{ action: "reject", message: "not during peak hours", user_id: "alice" }]);
    // The model read the reason too.
    const told = model.calls[1]!.messages.at(-1)!.content as string;
    expect(told).toContain("The user rejected this write_high call: not during peak hours");
    await page.close();
  });

  it("says a rejection in Chinese on a Chinese page, to the user and to the model (6)", async () => {
    const model = new ScriptedChatModel({
      script: [callsMessage([{ name: "write_high", args: { target: "pay", environment: "prod" } }])],
      onExhausted: "answer",
    });
    const server = await serverWith([], [], model);
    const page = await openPage(suite.browser, server, "zh-CN");
    await ask(page, "重启 pay 服务", { question: "你的问题", send: "发送" });
    const pause = page.locator("form.pause");
    await pause.getByRole("button", { name: "拒绝", exact: true }).click();
    await pause.getByLabel("原因（可选）").fill("高峰期不要重启");
    await pause.getByRole("button", { name: "确认拒绝" }).click();
    await page.locator(".run[data-state=final_answer]").waitFor();
    const card = page.locator(".call");
    expect(await card.locator(".summary").textContent()).toBe("alice 拒绝了：高峰期不要重启");
    expect(await card.locator(".call-state").textContent()).toMatch(/^已被你拒绝 · /);
    expect(await page.locator("p.answered").textContent()).toBe("你的回答： write_high: 拒绝 (高峰期不要重启)");
    const told = model.calls[1]!.messages.at(-1)!.content as string;
    expect(told).toContain("用户拒绝了这次 write_high 调用：高峰期不要重启");
    expect(told).not.toContain("The user rejected");
    await page.close();
  });

  it("keeps the demo model's answer to a Chinese rejection in Chinese (6)", async () => {
    const server = await startTestServer();
    servers.push(server);
    const user = { id: "local", role: "operator" as const };
    const threadId = await server.runtime.createThread(user);
    const paused = await collectEvents(await server.runtime.startRun({ threadId, message: "重启支付服务", user }));
    const pause = paused.find((event) => event.type === "loop_interrupt") as { calls: Array<{ callId: string }> };
    const resumed = await collectEvents(
      await server.runtime.resumeRun({
        threadId,
        user,
        resume: { decisions: [{ callId: pause.calls[0]!.callId, action: "reject", message: "高峰期不要重启" }] },
      }),
    );
    const answer = resumed.find((event) => event.type === "assistant_message") as { content: string };
    expect(answer.content).toContain("高峰期不要重启");
    expect(answer.content).not.toMatch(/The user rejected|rejected this/);
  });

  it("draws a risky call that also needs a field as high risk, its Approve naming the action (5)", async () => {
    const server = await startTestServer({ auth });
    servers.push(server);
    const page = await openPage(suite.browser, server, "zh-CN");
    await ask(page, "重启支付服务", { question: "你的问题", send: "发送" });
    const pause = page.locator("form.pause");
    await pause.getByLabel("environment").waitFor();
    expect(await pause.getAttribute("class")).toBe("pause risky");
    expect(await pause.locator("h3").textContent()).toBe("高风险操作：等待你的批准");
    const approve = pause.locator("button.approve");
    expect(await approve.textContent()).toBe("批准：restart_service service=payment-service environment=?");
    await pause.getByLabel("environment").selectOption("prod");
    expect(await approve.textContent()).toBe("批准：restart_service service=payment-service environment=prod");
    // The step card says it too, and the colours are the risky ones, not the neutral buttons'.
    const card = page.locator(".call[data-risk=high]");
    expect(await card.locator(".call-state").textContent()).toBe("高风险 · 等待你的确认");
    const colours = await page.evaluate(() => {
      const style = (selector: string) => getComputedStyle(document.querySelector(selector)!);
      return {
        approve: style("form.pause button.approve").backgroundColor,
        neutral: style("#new-thread").backgroundColor,
        card: style(".call[data-risk=high]").borderTopColor,
      };
    });
    expect(colours.approve).toBe("rgb(179, 38, 30)");
    expect(colours.card).toBe("rgb(179, 38, 30)");
    expect(colours.approve).not.toBe(colours.neutral);
    await page.close();
  });

  it("says a field filled in a pause was filled by the person, not approved, live and after a reload (6)", async () => {
    const server = await startTestServer({ auth });
    servers.push(server);
    const page = await openPage(suite.browser, server);
    await ask(page, "show me the error logs of payment-service");
    const pause = page.locator("form.pause");
    await pause.getByLabel("environment").selectOption("prod");
    await pause.getByRole("button", { name: "Continue" }).click();
    await page.locator(".run[data-state=final_answer]").waitFor();
    const card = page.locator(".call[data-state=ok]", { has: page.locator(".tool", { hasText: "search_logs" }) });
    const decision = () => card.locator(".decision").textContent();
    expect(await decision()).toBe("environment: prod · filled by alice");
    await page.reload();
    await card.waitFor();
    expect(await decision()).toBe("environment: prod · filled by alice");
    await page.close();
  });
});
