import { type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ScriptedChatModel } from "../fixtures/scripted-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { hasChromium, openThreadPage, useChromium } from "../fixtures/browser.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";
import { egressPostScript, egressTestTools, PLANTED_LOG_LINE, testTools } from "../fixtures/test-tools.js";
import type { PauseValue } from "../../src/contracts/pause/pause.js";

const local = { id: "local", role: "operator" as const };
const QUESTION = "Tell #ops what the payment-service logs say";
const MESSAGE = `payment-service logs say "${PLANTED_LOG_LINE}"`;
const ARGS = { channel: "#ops", message: MESSAGE };

/** What the page shows of the egress call's pause: the args as text, each mark, and the note. */
function pauseView(page: Page) {
  return page.locator("form.pause").evaluate((form) => {
    const pre = form.querySelector(".exact-args")!;
    const marks = Array.from(pre.querySelectorAll("mark")).map((mark) => {
      // The line of the args the mark stands in, up to the mark.
      const before = document.createRange();
      before.setStart(pre, 0);
      before.setEndBefore(mark);
      return { text: mark.textContent, title: mark.getAttribute("title"), line: before.toString().split("\n").at(-1) };
    });
    return {
      args: pre.textContent,
      marks,
      note: Array.from(form.querySelectorAll(".egress-note p")).map((p) => p.textContent),
      elsewhere: Array.from(form.querySelectorAll(".copied-elsewhere li")).map((li) => ({
        text: li.textContent,
        mark: li.querySelector("mark")?.getAttribute("title"),
      })),
    };
  });
}

describe.skipIf(!hasChromium)("an egress call's pause on the page (issue 30)", () => {
  const suite = useChromium();

  /** A thread that read `tail_logs` (untrusted) and then asked to post what it read: paused. */
  async function egressPause(sent: Array<{ channel: string; message: string }> = []) {
    const server: TestServer = await startTestServer({
      model: new ScriptedChatModel({
        script: egressPostScript(ARGS),
      }),
      tools: () => [...testTools(), ...egressTestTools({ sent })],
    });
    suite.servers.push(server);
    const threadId = await server.runtime.createThread(local);
    const events = await collectEvents(await server.runtime.startRun({ threadId, message: QUESTION, user: local }));
    const pause = events.find((event) => event.type === "loop_interrupt") as PauseValue | undefined;
    return { server, threadId, pause, events };
  }

  it("marks the copied text inside its field, names the source, marks untrusted results, and approves", async () => {
    const sent: Array<{ channel: string; message: string }> = [];
    const { server, threadId, pause, events } = await egressPause(sent);
    // The server's side, as the page gets it: the call waits, and says what it copied from where.
    expect(pause?.interruptType).toBe("confirm_risky");
    expect(pause?.calls[0]?.egress?.sources).toEqual(["tail_logs"]);
    expect(pause?.calls[0]?.egress?.copied).toContainEqual({
      field: "message",
      text: PLANTED_LOG_LINE,
      from: "tail_logs",
    });
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({ tool: "tail_logs", untrusted: true });

    const context = await suite.browser.newContext({ viewport: { width: 1100, height: 900 }, locale: "en-US" });
    const page = await openThreadPage(context, server.url, threadId);
    await page.locator("form.pause").waitFor();
    const view = await pauseView(page);
    // The args read exactly as JSON, with the planted line marked inside the message's value.
    expect(view.args).toBe(JSON.stringify(ARGS, null, 2));
    expect(view.marks).toEqual([
      { text: PLANTED_LOG_LINE, title: "from tail_logs", line: '  "message": "payment-service logs say \\"' },
    ]);
    expect(view.note).toEqual([
      "Sends data out; the thread read content from: tail_logs",
      "Marked text in the args also stands in what tail_logs returned.",
    ]);
    expect(view.elsewhere).toEqual([]);
    // The read's card says its content came from an untrusted source, in words, with why in its title.
    const badge = page.locator('.call[data-state=ok]:has(.tool:text-is("tail_logs")) .untrusted-badge');
    expect(await badge.textContent()).toBe("untrusted source");
    expect(await badge.getAttribute("title")).toMatch(/calls that send data out wait for you/);
    expect(await page.locator('.call:has(.tool:text-is("notify_channel")) .untrusted-badge').count()).toBe(0);

    // Approving sends exactly what was shown.
    await page
      .locator("form.pause")
      .getByRole("button", { name: /^Approve: notify_channel/ })
      .click();
    await page.locator(".run[data-state=final_answer]").last().waitFor();
    expect(sent).toEqual([ARGS]);
    // After a reload the untrusted read is still marked, from the recorded events.
    await page.reload();
    await page.locator(".run[data-state=final_answer]").last().waitFor();
    expect(await badge.textContent()).toBe("untrusted source");
    await context.close();
  });

  it("lists a copied part it cannot find in its field below the args, and speaks Chinese on a Chinese page", async () => {
    const { server, threadId } = await egressPause();
    const context = await suite.browser.newContext({ viewport: { width: 1100, height: 900 }, locale: "zh-CN" });
    // A part whose field the args do not have (as a pause written by another version might carry).
    await context.route(
      (url) => url.pathname === `/api/threads/${threadId}`,
      async (route) => {
        const response = await route.fetch();
        const view = (await response.json()) as { interrupt: PauseValue };
        view.interrupt.calls[0]!.egress!.copied.push({
          field: "blocks[0].text",
          text: "<b>rm -rf /</b>",
          from: "tail_logs",
        });
        await route.fulfill({ response, json: view });
      },
    );
    const page = await openThreadPage(context, server.url, threadId);
    await page.locator("form.pause").waitFor();
    const view = await pauseView(page);
    expect(view.args).toBe(JSON.stringify(ARGS, null, 2));
    expect(view.marks.map((mark) => [mark.text, mark.title])).toEqual([[PLANTED_LOG_LINE, "来自 tail_logs"]]);
    expect(view.note).toEqual([
      "会把数据发送到外部；本线程读过来自以下来源的内容：tail_logs",
      "参数中标出的文字也出现在 tail_logs 返回的内容里。",
    ]);
    // Listed as text: the markup in it is not markup on the page.
    expect(view.elsewhere).toEqual([{ text: "blocks[0].text: <b>rm -rf /</b>", mark: "来自 tail_logs" }]);
    expect(await page.locator("form.pause b").count()).toBe(0);
    expect(await page.locator(".untrusted-badge").first().textContent()).toBe("不受信任的来源");
    await context.close();
  });
});
