import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type Page } from "playwright-core";
import { hasChromium, launchChromium } from "../fixtures/browser.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import type { RecordsSummary } from "../../src/contracts/records.js";
import { RecordsSummarySchema } from "../../src/contracts/records.js";
import { DemoChatModel } from "../../src/demo/model/demo-model.js";
import { currentRolesOf, type ServerAuth } from "../../src/server/auth/auth.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { seedWeekOfRecords, type SeededFigures } from "../fixtures/seed-records.js";

const ARTIFACTS = fileURLToPath(new URL("../artifacts/", import.meta.url));
const DAY_MS = 86_400_000;
const VIEWER_TOKEN = "viewer-token-dashboard-0001";
const OPERATOR_TOKEN = "operator-token-dashboard-0001";
const AUTH: ServerAuth = {
  tokens: new Map([
    [VIEWER_TOKEN, { id: "vera", role: "viewer" }],
    [OPERATOR_TOKEN, { id: "otto", role: "operator" }],
  ]),
};

/** The window the page asks for: the `days` UTC days ending today. */
function lastDays(days: number, now = Date.now()): { since: string; until: string } {
  const until = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  return { since: new Date(until - days * DAY_MS).toISOString(), until: new Date(until).toISOString() };
}

/** `GET /api/records/summary` over the last `days` days, as the viewer. */
async function summaryOf(baseUrl: string, days: number): Promise<RecordsSummary> {
  const response = await fetch(`${baseUrl}/api/records/summary?${new URLSearchParams(lastDays(days))}`, {
    headers: { authorization: `Bearer ${VIEWER_TOKEN}` },
  });
  expect(response.status).toBe(200);
  return RecordsSummarySchema.parse(await response.json());
}

/** What the page shows of the three headline figures. */
function headlineOf(page: Page) {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>(".figure"), (figure) => ({
      title: figure.querySelector("h3")?.textContent,
      value: figure.querySelector<HTMLElement>(".value")?.dataset.value,
      shown: figure.querySelector(".value")?.textContent,
      detail: figure.querySelector(".detail")?.textContent,
    })),
  );
}

/** For each chart canvas of the page: its panel and how many of its pixels are not transparent. */
function paintedPixels(page: Page) {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll("canvas"), (canvas) => {
      const pixels = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
      let painted = 0;
      for (let index = 3; index < pixels.length; index += 4) if (pixels[index] !== 0) painted++;
      return { where: canvas.closest("[id]")?.id, painted };
    }),
  );
}

describe.skipIf(!hasChromium)("the dashboard in headless Chromium", () => {
  let directory: string;
  let app: App;
  let server: RunningServer;
  let browser: Browser;
  let seeded: SeededFigures;
  let weekBefore: SeededFigures;
  let summary: RecordsSummary;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    directory = mkdtempSync(join(tmpdir(), "opspilot-dashboard-"));
    app = createApp({
      env: loadEnv({}),
      dbPath: join(directory, "opspilot.sqlite"),
      model: new DemoChatModel(),
      currentRoles: currentRolesOf(AUTH),
    });
    const now = Date.now();
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const setTime = (ms: number) => vi.setSystemTime(ms);
      weekBefore = await seedWeekOfRecords(app.storage, { now, setTime, endsDaysAgo: 7, firstRun: 103 });
      seeded = await seedWeekOfRecords(app.storage, { now, setTime, waitingPause: true });
    } finally {
      vi.useRealTimers();
    }
    server = await startServer({
      runtime: app.runtime,
      auth: AUTH,
      host: "127.0.0.1",
      port: 0,
      logger: { error() {} },
    });
    summary = await summaryOf(server.url, 7);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await app?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  /** Opens the dashboard offline (anything but this server is refused), answers the token form and waits for the figures. */
  async function openDashboard(options: { width: number; locale: string; token?: string }) {
    const page = await browser.newPage({
      viewport: { width: options.width, height: 900 },
      locale: options.locale,
      timezoneId: "UTC",
    });
    const problems: string[] = [];
    const outside: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => {
      // Chromium logs each refused request; the token asked for first is the page's ordinary path.
      if (message.text().endsWith("status of 401 (Unauthorized)")) return;
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    await page.route("**/*", (route) => {
      if (route.request().url().startsWith(server.url)) return route.continue();
      outside.push(route.request().url());
      return route.abort();
    });
    await page.goto(`${server.url}/dashboard`);
    // The first load has no token, so the page asks for one as the main page does.
    await page.locator("#token-form:not([hidden])").waitFor();
    await page.locator("#token").fill(options.token ?? VIEWER_TOKEN);
    await page.locator("#token-form button[type=submit]").click();
    await page.locator(`body[data-state=${options.token ? "failed" : "ready"}]`).waitFor();
    return { page, problems, outside };
  }

  it("summarizes the seeded week exactly as it was recorded", () => {
    expect(summary.runs).toBe(seeded.runs);
    expect(summary.runs).toBe(20);
    expect(summary.averageSteps).toBe(seeded.steps / seeded.runs);
    expect(summary.toolCalls).toBe(seeded.toolCalls);
    expect(summary.toolFailureRate).toBe(seeded.failures / seeded.toolCalls);
    expect(summary.pauses.paused).toBe(seeded.paused);
    expect(summary.pauses.resumedAndFinished).toBe(seeded.resumedAndFinished);
    expect(summary.pauses.resumeFinishRate).toBe(seeded.resumedAndFinished / seeded.paused);
    expect(summary.stopReasons).toEqual(seeded.stopReasons);
    expect(summary.days.map((day) => day.runs)).toEqual([2, 3, 4, 2, 3, 4, 2]);
    expect(summary.waitingPauses.map((pause) => [pause.threadId, pause.tool])).toEqual([
      [seeded.waitingThreadId, "restart_service"],
    ]);
  });

  it("shows the summary's three numbers first, draws every chart and links the waiting pause, at 1280 px in English", async () => {
    const { page, problems, outside } = await openDashboard({ width: 1280, locale: "en-US" });
    // The page rounds as Intl does (2.15 → "2.2"), not as toFixed does on the binary value ("2.1").
    const oneDecimal = new Intl.NumberFormat("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format;
    const percent = (rate: number) => `${oneDecimal(rate * 100)}%`;
    expect(await headlineOf(page)).toEqual([
      {
        title: "Average steps per run",
        value: String(summary.averageSteps),
        shown: oneDecimal(summary.averageSteps),
        detail: `${seeded.steps} steps over ${seeded.runs} runs`,
      },
      {
        title: "Tool failure rate",
        value: String(summary.toolFailureRate),
        shown: percent(summary.toolFailureRate),
        detail: `${seeded.failures} of ${seeded.toolCalls} tool calls failed`,
      },
      {
        title: "Paused for a person, then finished",
        value: String(summary.pauses.resumeFinishRate),
        shown: percent(summary.pauses.resumeFinishRate),
        detail: `${seeded.resumedAndFinished} of ${seeded.paused} paused runs finished`,
      },
    ]);
    const trend = (now: number, before: number, format: (delta: number) => string) =>
      now === before
        ? "= the previous 7 days"
        : `${now > before ? "▲" : "▼"} ${format(Math.abs(now - before))} vs the previous 7 days`;
    const points = (delta: number) => `${oneDecimal(delta * 100)} pp`;
    const failureRateBefore = weekBefore.failures / weekBefore.toolCalls;
    expect(await page.locator(".figure .trend").allTextContents()).toEqual([
      trend(summary.averageSteps, weekBefore.steps / weekBefore.runs, oneDecimal),
      trend(summary.toolFailureRate, failureRateBefore, points),
      trend(summary.pauses.resumeFinishRate, weekBefore.resumedAndFinished / weekBefore.paused, points),
    ]);
    // Fewer failures is better; the steps' direction is no verdict on its own.
    expect(
      await page.locator(".figure .trend").evaluateAll((trends) => trends.map((element) => element.dataset.judgement)),
    ).toEqual([
      "neutral",
      summary.toolFailureRate < failureRateBefore ? "better" : "worse",
      summary.pauses.resumeFinishRate > weekBefore.resumedAndFinished / weekBefore.paused ? "better" : "worse",
    ]);
    const charts = await paintedPixels(page);
    expect(charts.map((chart) => chart.where)).toEqual([
      "figure-steps",
      "figure-failures",
      "figure-resume",
      "panel-runs",
      "panel-tools",
      "panel-usage",
    ]);
    for (const chart of charts) expect(chart.painted, chart.where).toBeGreaterThan(200);
    const link = page.locator("#panel-pauses .waiting a");
    expect(await link.getAttribute("href")).toBe(`/?thread=${seeded.waitingThreadId}`);
    expect(await page.locator("#panel-tools tbody th").allTextContents()).toEqual(
      summary.topFailingTools.map((tool) => tool.tool),
    );
    await page.screenshot({ path: `${ARTIFACTS}dashboard-1280.png`, fullPage: true });
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
    await page.close();
  });

  it("fits a 390 px phone in Chinese with the seed's words and the same numbers", async () => {
    const { page, problems, outside } = await openDashboard({ width: 390, locale: "zh-CN" });
    const headline = await headlineOf(page);
    expect(headline.map((figure) => [figure.title, figure.value])).toEqual([
      ["平均转了几圈", String(summary.averageSteps)],
      ["工具失败率", String(summary.toolFailureRate)],
      ["停下来问用户之后有多少能接着跑完", String(summary.pauses.resumeFinishRate)],
    ]);
    // Nothing is wider than the phone: no sideways scrolling.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    for (const chart of await paintedPixels(page)) expect(chart.painted, chart.where).toBeGreaterThan(200);
    await page.screenshot({ path: `${ARTIFACTS}dashboard-390.png`, fullPage: true });

    await page.getByRole("button", { name: "English" }).click();
    expect((await headlineOf(page)).map((figure) => figure.title)).toEqual([
      "Average steps per run",
      "Tool failure rate",
      "Paused for a person, then finished",
    ]);
    // Thirty days take in both seeded weeks.
    const month = await summaryOf(server.url, 30);
    expect(month.runs).toBe(seeded.runs + weekBefore.runs);
    await page.getByLabel("Window").selectOption("30");
    await page.locator("body[data-state=ready]").waitFor();
    expect((await headlineOf(page)).map((figure) => figure.value)).toEqual([
      String(month.averageSteps),
      String(month.toolFailureRate),
      String(month.pauses.resumeFinishRate),
    ]);
    expect(await page.locator("#range").textContent()).toBe(
      `${month.since.slice(0, 10)} – ${month.days.at(-1)!.day} (UTC) · ${month.runs} runs ended`,
    );
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
    await page.close();
  });

  it("tells an operator that the figures are for admins and viewers", async () => {
    const { page, problems } = await openDashboard({ width: 1280, locale: "en-US", token: OPERATOR_TOKEN });
    expect(await page.locator("#notice").textContent()).toBe("Your token may not read the records summary.");
    expect(await page.locator(".figure .value").allTextContents()).toEqual(["", "", ""]);
    // Chromium reports each refused request (the window, the week before and each day); nothing else went wrong.
    expect(new Set(problems)).toEqual(
      new Set(["Failed to load resource: the server responded with a status of 403 (Forbidden)"]),
    );
    await page.close();
  });

  it("serves Chart.js from node_modules and the page under the no-inline-script policy", async () => {
    const library = await fetch(`${server.url}/vendor/chart.umd.js`);
    expect(library.status).toBe(200);
    expect(library.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await library.text()).toContain("Chart.js v4");
    const page = await fetch(`${server.url}/dashboard`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const scripts = (await page.text()).match(/<script[^>]*>/g);
    expect(scripts).toEqual(['<script src="/vendor/chart.umd.js">', '<script type="module" src="/dashboard.js">']);
  });
});
