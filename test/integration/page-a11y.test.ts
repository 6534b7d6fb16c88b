import { type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { hasChromium, launchChromium, openThreadPage } from "../fixtures/browser.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";
import { egressTestTools, PLANTED_LOG_LINE, testTools } from "../fixtures/test-tools.js";

const local = { id: "local", role: "operator" as const };

const TABLE_ANSWER = [
  "payment-service in **prod** over the last hour:",
  "",
  "| error code | count | runbook |",
  "| --- | ---: | --- |",
  "| PAY-TIMEOUT | 42 | rb-pay-timeout |",
  "| PAY-DECLINED | 7 | rb-pay-declined |",
  "| DB-CONN | 3 | rb-db-pool |",
  "",
  "1. Check the gateway latency first (`PAY-TIMEOUT` follows it).",
  "2. If the pool is saturated, raise `maxConnections` as rb-db-pool says.",
].join("\n");

/** Every text element the page shows, with its colour, the background it sits on and their contrast ratio. */
function contrasts(page: Page) {
  return page.evaluate(() => {
    const parse = (colour: string) => {
      const match = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(colour);
      if (!match) return undefined;
      return { r: +match[1]!, g: +match[2]!, b: +match[3]!, a: match[4] === undefined ? 1 : +match[4] };
    };
    const luminance = ({ r, g, b }: { r: number; g: number; b: number }) => {
      const channel = (value: number) => {
        const c = value / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const background = (element: Element | null): { r: number; g: number; b: number } => {
      for (let node = element; node; node = node.parentElement) {
        const colour = parse(getComputedStyle(node).backgroundColor);
        if (colour && colour.a > 0.5) return colour;
      }
      return parse(getComputedStyle(document.documentElement).backgroundColor) ?? { r: 255, g: 255, b: 255 };
    };
    const selectors = [
      "body",
      ".top h1",
      "#new-thread",
      "#send",
      ".threads summary",
      ".thread-title",
      ".thread-meta time",
      ".thread-list .badge.waiting",
      ".bubble.user p",
      ".bubble .who",
      ".bubble.assistant .markdown p",
      ".bubble.assistant .markdown td",
      ".bubble.assistant .markdown th",
      ".bubble.assistant .markdown code",
      ".run-status",
      ".step-label",
      ".call .tool",
      ".call .args",
      ".call-state",
      ".call .summary",
      ".call .decision",
      ".call details.result summary",
      ".pause h3",
      ".pause .reason",
      ".pause .risk-badge",
      ".pause button.approve",
      ".pause button.reject",
      ".exact-args",
      ".exact-args mark",
      ".egress-note p",
      ".call .untrusted-badge",
      ".answered",
      "#message",
    ];
    const found: Array<{ selector: string; text: string; ratio: number }> = [];
    for (const selector of selectors) {
      for (const element of Array.from(document.querySelectorAll(selector))) {
        const style = getComputedStyle(element);
        if (style.display === "none" || style.visibility === "hidden" || !element.textContent?.trim()) continue;
        const fg = parse(style.color)!;
        const bg = background(element);
        const [light, dark] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
        found.push({
          selector,
          text: element.textContent.trim().slice(0, 30),
          ratio: (light! + 0.05) / (dark! + 0.05),
        });
        break;
      }
    }
    return found;
  });
}

describe.skipIf(!hasChromium)("the page: contrast, dark mode and the keyboard", () => {
  let server: TestServer;
  let browser: Browser;
  let pausedThread: string;
  let answeredThread: string;
  let egressThread: string;
  beforeAll(async () => {
    server = await startTestServer({
      model: new ScriptedChatModel({
        script: [
          // An egress call after an untrusted read: its pause marks what it copied (issue 30).
          callsMessage([{ name: "tail_logs", args: { service: "payment-service" } }]),
          callsMessage([
            { name: "notify_channel", args: { channel: "#ops", message: `payment-service: ${PLANTED_LOG_LINE}` } },
          ]),
          callsMessage([
            { name: "read_a", args: { query: "payment-service errors" } },
            { name: "read_b", args: { query: "payment runbooks" } },
          ]),
          answerMessage(TABLE_ANSWER),
          callsMessage([{ name: "read_a", args: { query: "payment-service health" } }]),
          callsMessage([{ name: "write_high", args: { target: "payment-service" } }]),
          answerMessage("Restarted payment-service in staging."),
          callsMessage([{ name: "write_high", args: { target: "payment-service", environment: "prod" } }]),
        ],
      }),
      tools: () => [...testTools(), ...egressTestTools()],
    });
    // First, so that the thread list shows the other paused thread on top.
    egressThread = await server.runtime.createThread(local);
    await collectEvents(
      await server.runtime.startRun({ threadId: egressThread, message: "Post the payment-service logs", user: local }),
    );
    answeredThread = await server.runtime.createThread(local);
    await collectEvents(
      await server.runtime.startRun({
        threadId: answeredThread,
        message: "What failed on payment-service?",
        user: local,
      }),
    );
    pausedThread = await server.runtime.createThread(local);
    await collectEvents(
      await server.runtime.startRun({ threadId: pausedThread, message: "Restart payment-service", user: local }),
    );
    browser = await launchChromium(["--disable-quic"]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const open = (context: BrowserContext, threadId: string) => openThreadPage(context, server.url, threadId);

  for (const colorScheme of ["light", "dark"] as const) {
    it(`keeps text contrast at WCAG AA (4.5:1) in ${colorScheme} mode`, async () => {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        locale: "en-US",
        colorScheme,
      });
      for (const threadId of [answeredThread, pausedThread, egressThread]) {
        const page = await open(context, threadId);
        await page.locator(".call[data-state=ok] details.result, form.pause").first().waitFor();
        const found = await contrasts(page);
        const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
        expect(background).toBe(colorScheme === "dark" ? "rgb(17, 20, 24)" : "rgb(246, 247, 249)");
        expect(found.length).toBeGreaterThan(15);
        const failing = found.filter((entry) => entry.ratio < 4.5);
        expect(failing, JSON.stringify(failing)).toEqual([]);
        if (threadId === egressThread)
          expect(found.map((entry) => entry.selector)).toEqual(
            expect.arrayContaining([".exact-args mark", ".egress-note p", ".call .untrusted-badge"]),
          );
        await page.close();
      }
      await context.close();
    });
  }

  it("works from the keyboard with a visible focus: thread list, approve, expand, copy, stop (a11y)", async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      locale: "en-US",
      permissions: ["clipboard-read", "clipboard-write"],
    });
    const page = await open(context, answeredThread);
    expect(await page.locator("#log").getAttribute("aria-live")).toBe("polite");

    /** Presses Tab until `selector` has the focus (at most 60 times); returns its outline then. */
    const tabTo = async (selector: string) => {
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press("Tab");
        const outline = await page.evaluate((wanted) => {
          const active = document.activeElement;
          if (!active?.matches(wanted)) return undefined;
          const style = getComputedStyle(active);
          return `${style.outlineStyle} ${style.outlineWidth}`;
        }, selector);
        if (outline) return outline;
      }
      throw new Error(`${selector} never got the focus`);
    };

    // The thread list: the paused thread is first; Enter opens it.
    expect(await tabTo(".thread-list li:first-child a")).toBe("solid 3px");
    await page.keyboard.press("Enter");
    await page.waitForURL(`**/?thread=${pausedThread}`);
    await page.locator("form.pause").waitFor();
    // The form takes the focus: choose the environment, then approve from the keyboard.
    expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("environment");
    await page.getByLabel("environment").selectOption("staging");
    expect(await tabTo("form.pause button.approve")).toBe("solid 3px");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(
      "Approve: write_high target=payment-service environment=staging",
    );
    await page.keyboard.press("Enter");
    await page.locator(".run[data-state=final_answer]").last().waitFor();

    // Expand a result and copy it.
    expect(await tabTo(".call[data-state=ok] details.result summary")).toBe("solid 3px");
    await page.keyboard.press("Enter");
    await page.locator(".result-text").first().waitFor();
    expect(await tabTo("button.copy")).toBe("solid 3px");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator(".copy-state").first().textContent()).toBe("Copied");

    // Stop, from the keyboard, on a run that waits.
    await page.getByLabel("Your question").focus();
    await page.keyboard.type("restart it again");
    await page.keyboard.press("Enter");
    await page.locator("form.pause").waitFor();
    expect(await tabTo("#stop")).toBe("solid 3px");
    await page.keyboard.press("Enter");
    await page.locator(".run[data-state=cancelled]").waitFor();
    await context.close();
  });
});
