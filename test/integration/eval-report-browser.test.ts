import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { renderHtmlReport } from "../../src/eval/report/html-report.js";
import { parseScenarios } from "../../src/eval/load-scenarios.js";
import { runEval } from "../../src/eval/run-eval.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { hasChromium, launchChromium } from "../fixtures/browser.js";

const HOSTILE = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;

describe.skipIf(!hasChromium)("the HTML report in headless Chromium", () => {
  it("opens with no console error, no request and no script, and shows hostile observations as text", async () => {
    const scenarios = parseScenarios(
      `id: hostile\nquestion: find the payment service\nexpect: { tools: { required: [search_resource] }, evidence: [RB-003] }\n`,
      "hostile.yaml",
    );
    const chatModel = new ScriptedChatModel({
      script: [
        callsMessage([{ name: "search_resource", args: { query: HOSTILE } }]),
        answerMessage(`</pre></details><script>window.__pwned=3</script> nothing found`),
      ],
    });
    const { report, runs } = await runEval({ scenarios, variables: {}, chatModel, repeat: 1, concurrency: 1 });
    expect(report.scenarios[0]!.checks.find((check) => check.name === "evidence")?.passed).toBe(false);
    const file = join(mkdtempSync(join(tmpdir(), "opspilot-eval-html-")), "report.html");
    writeFileSync(file, renderHtmlReport(report, runs));

    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(error.message));
      page.on("dialog", (dialog) => problems.push(`dialog: ${dialog.message()}`));
      page.on("request", (request) => requests.push(request.url()));
      await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator("script").count()).toBe(0);
      expect(await page.locator("img").count()).toBe(0);
      const text = await page.locator("#s-hostile").innerText();
      // The call's args and the observation carry it as JSON text.
      expect(text).toContain(JSON.stringify(HOSTILE).slice(1, -1));
      expect(text).toContain("</pre></details><script>window.__pwned=3</script> nothing found");
      expect(text).toContain("evidence: RB-003 is in neither the answer nor any observation");
      expect(await page.title()).toBe("opspilot eval: demo");
      expect(problems).toEqual([]);
      expect(requests).toEqual([pathToFileURL(file).href]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
