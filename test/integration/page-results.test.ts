import { type Browser, type Page } from "playwright-core";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { defineTool } from "../../src/tools/types.js";
import { hasChromium, launchChromium } from "../fixtures/browser.js";
import { startTestServer, type TestServer } from "../fixtures/http.js";
import { testTools } from "../fixtures/test-tools.js";

const XSS_IMG = `<img src=x onerror="window.__xss = (window.__xss || 0) + 1; alert('xss')">`;
const XSS_LINK = "javascript:window.__xss=1;alert('xss')";

/** A read that returns a wide inventory (its one-line summary is cut) with hostile text in it. */
const inventory = defineTool({
  name: "inventory",
  description: "Lists the hosts of a service.",
  schema: z.object({ service: z.string().describe("Service") }),
  readOnly: true,
  risk: "low",
  timeoutMs: 1_000,
  async run(args) {
    return {
      service: args.service,
      hosts: Array.from({ length: 12 }, (_, i) => ({ name: `${args.service}-${i + 1}`, zone: `zone-${i % 3}` })),
      note: XSS_IMG,
      runbook: XSS_LINK,
    };
  },
});

const ANSWER = [
  "Here is what I found:",
  "",
  "| host | zone | state |",
  "| --- | --- | --- |",
  "| pay-1 | zone-0 | ok |",
  "| pay-2 | zone-1 | degraded |",
  "",
  "- first item",
  "- second item",
  "",
  "```",
  "kubectl rollout restart deploy/pay",
  "```",
  "",
  `Raw HTML stays text: ${XSS_IMG} <script>window.__xss = 1</script>`,
  "",
  `[open the runbook](${XSS_LINK}) and [the docs](https://example.com/docs).`,
].join("\n");

describe.skipIf(!hasChromium)("tool results and answers on the page", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({
      model: new ScriptedChatModel({
        script: [callsMessage([{ name: "inventory", args: { service: "payment-service" } }]), answerMessage(ANSWER)],
      }),
      tools: () => [...testTools(), inventory],
    });
    browser = await launchChromium(["--disable-quic"]);
    const context = await browser.newContext({
      viewport: { width: 1000, height: 900 },
      locale: "en-US",
      permissions: ["clipboard-read", "clipboard-write"],
    });
    page = await context.newPage();
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${server.url}/`);
    await page.getByLabel("Your question").fill("what runs payment-service?");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.locator(".run[data-state=final_answer]").waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("cuts a card's summary on a readable boundary, never mid-key (7)", async () => {
    const threadId = new URL(page.url()).searchParams.get("thread")!;
    const [result] = (await server.client.eventsAfter(threadId, 0)).filter((event) => event.type === "tool_result");
    const cut = (result as { summary: string }).summary;
    // The server's line stops mid-token; the card ends after the last whole entry.
    expect(() => JSON.parse(cut)).toThrow();
    const shown = await page.locator(".call .summary").textContent();
    expect(shown).toMatch(/, …$/);
    const kept = shown!.slice(0, -3);
    expect(cut.startsWith(kept)).toBe(true);
    expect(cut[kept.length]).toBe(",");
    expect(await page.locator(".call .summary").getAttribute("title")).toBe(cut);
  });

  it("expands a card to the full masked result, pretty-printed, and copies it, from the keyboard (7)", async () => {
    const threadId = new URL(page.url()).searchParams.get("thread")!;
    const callId = await page.locator(".call").getAttribute("data-call-id");
    const stored = (await (
      await server.client.request("GET", `/api/threads/${threadId}/results/${callId}`)
    ).json()) as {
      result: unknown;
    };
    const summary = page.locator(".call details.result summary");
    expect(await summary.textContent()).toBe("Full result");
    await summary.focus();
    await page.keyboard.press("Enter");
    const pre = page.locator(".call .result-text");
    await pre.waitFor();
    expect(await pre.textContent()).toBe(JSON.stringify(stored.result, null, 2));
    expect(await page.locator(".call details.result").getAttribute("open")).toBe("");

    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Copy");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator(".copy-state").textContent()).toBe("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(JSON.stringify(stored.result, null, 2));
  });

  it("renders the answer's Markdown: a table, a list, code, and a safe link (8)", async () => {
    const answer = page.locator(".bubble.assistant .markdown");
    expect(await answer.locator("table th").allTextContents()).toEqual(["host", "zone", "state"]);
    expect(await answer.locator("table tbody tr").count()).toBe(2);
    expect(await answer.locator("ul li").allTextContents()).toEqual(["first item", "second item"]);
    expect(await answer.locator("pre code").textContent()).toBe("kubectl rollout restart deploy/pay\n");
    const docs = answer.getByRole("link", { name: "the docs" });
    expect(await docs.getAttribute("href")).toBe("https://example.com/docs");
    expect(await docs.getAttribute("rel")).toBe("noopener noreferrer");
  });

  it("never runs markup from a tool result or an answer (8)", async () => {
    // The result opened above holds the payload too; reload to check the history path as well.
    for (const when of ["live", "after reload"]) {
      if (when === "after reload") {
        await page.reload();
        await page.locator(".run[data-state=final_answer]").waitFor();
        await page.locator(".call details.result summary").click();
        await page.locator(".call .result-text").waitFor();
      }
      const found = await page.evaluate(() => ({
        xss: (window as unknown as { __xss?: number }).__xss ?? 0,
        images: document.querySelectorAll("#log img").length,
        scripts: document.querySelectorAll("#log script").length,
        handlers: Array.from(document.querySelectorAll("*")).filter((element) =>
          Array.from(element.attributes).some((attribute) => attribute.name.startsWith("on")),
        ).length,
        scriptLinks: Array.from(document.querySelectorAll("a")).filter((a) =>
          (a.getAttribute("href") ?? "").trim().toLowerCase().startsWith("javascript:"),
        ).length,
        answerText: document.querySelector(".bubble.assistant .markdown")!.textContent,
        resultText: document.querySelector(".call .result-text")?.textContent ?? "",
      }));
      expect(found, when).toMatchObject({ xss: 0, images: 0, scripts: 0, handlers: 0, scriptLinks: 0 });
      // Shown as the characters they are.
      expect(found.answerText).toContain(XSS_IMG);
      expect(found.answerText).toContain("<script>window.__xss = 1</script>");
      expect(found.resultText).toContain("onerror");
    }
    expect(dialogs).toEqual([]);
  });

  it("serves marked and DOMPurify from this server under a strict Content-Security-Policy (8)", async () => {
    const home = await fetch(`${server.url}/`);
    const csp = home.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    for (const path of ["/vendor/marked.js", "/vendor/purify.js"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(await response.text()).toMatch(/export\s*\{/);
    }
    // Nothing the page loaded came from another origin.
    const origins = await page.evaluate(() =>
      performance.getEntriesByType("resource").map((entry) => new URL(entry.name).origin),
    );
    expect(new Set(origins)).toEqual(new Set([server.url]));
  });
});
