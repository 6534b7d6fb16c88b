import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { startAlertIntake, type RunningIntake } from "../../src/server/incidents/intake.js";
import { currentRolesOf } from "../../src/server/auth/auth.js";
import { startServer } from "../../src/server/start.js";
import { ALERT_TOKEN, API_TOKENS, firingFixture, tempDirectory } from "../fixtures/alert-server.js";
import { hasChromium, useChromium } from "../fixtures/browser.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { testTools } from "../fixtures/test-tools.js";

/** opspilot with alert intake and API tokens (operator, viewer, admin), over a scripted model and the test tools. */
async function startIntakeServer(directory: string) {
  const env = loadEnv({ OPSPILOT_ALERT_TOKEN: ALERT_TOKEN, OPSPILOT_API_TOKENS: API_TOKENS });
  const auth = { tokens: env.OPSPILOT_API_TOKENS };
  const app = createApp({
    env,
    dbPath: join(directory, "opspilot.sqlite"),
    // The firing incident's investigation proposes a high-risk write (a pause for approval); the other answers.
    model: new ScriptedChatModel({
      script: [
        callsMessage([{ name: "write_high", args: { target: "payment-service", environment: "prod" } }]),
        answerMessage("order-service latency is back under its objective."),
        answerMessage("Restarted payment-service in prod."),
      ],
    }),
    tools: () => testTools(),
    currentRoles: currentRolesOf(auth),
    sweepMs: { incidents: 100 },
  });
  const logger = { error: (message: string, error?: unknown) => console.error(message, error) };
  const intake: RunningIntake = startAlertIntake(app, logger);
  const server = await startServer({
    runtime: app.runtime,
    auth,
    host: "127.0.0.1",
    port: 0,
    logger,
    rateLimitPerMinute: 0,
    alerts: intake.alerts,
  });
  app.start();
  return {
    url: server.url,
    intake,
    async close() {
      await server.close();
      await intake.worker.close();
      await app.close();
    },
  };
}

type IntakeServer = Awaited<ReturnType<typeof startIntakeServer>>;

/** An Alertmanager group of one alert, named and labelled as given, in the shape of the recorded fixture. */
function group(options: { alertname: string; service: string; severity: string; startsAt: string; status?: string }) {
  const body = firingFixture();
  const [alert] = body.alerts as Array<Record<string, unknown>>;
  const labels = { alertname: options.alertname, service: options.service, severity: options.severity };
  const status = options.status ?? "firing";
  return {
    ...body,
    status,
    groupKey: `{}:{alertname="${options.alertname}"}`,
    commonLabels: labels,
    alerts: [{ ...alert, status, labels, startsAt: options.startsAt, fingerprint: `fp-${options.alertname}` }],
  };
}

async function deliver(server: IntakeServer, body: unknown): Promise<string> {
  const response = await fetch(`${server.url}/api/alerts/alertmanager`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ALERT_TOKEN}` },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { incidentId: string }).incidentId;
}

/** A browser context whose page sends `token` as the API bearer token. */
async function signedIn(context: BrowserContext, token: string): Promise<BrowserContext> {
  await context.addInitScript((value) => window.localStorage.setItem("opspilot.token", value), token);
  return context;
}

/** The incident list as shown, one line of visible text per incident. */
const incidentsOf = (page: Page) =>
  page.locator("#incident-list li").evaluateAll((items) =>
    items.map((item) => ({
      badge: item.querySelector(".badge")?.textContent,
      name: item.querySelector(".incident-name")?.textContent,
      meta: Array.from(item.querySelectorAll(".incident-meta > :not(time)")).map((span) => span.textContent),
      startsAt: item.querySelector("time")?.getAttribute("datetime"),
      current: item.querySelector("a")?.getAttribute("aria-current") === "page",
    })),
  );

/** How many incident texts are shown, and those whose contrast with their background is under WCAG AA (4.5:1). */
const lowContrast = (page: Page) =>
  page.evaluate(() => {
    const parse = (colour: string) => {
      const [r = 0, g = 0, b = 0, a = 1] = (colour.match(/[\d.]+/g) ?? []).map(Number);
      return { r, g, b, a };
    };
    const luminance = ({ r, g, b }: { r: number; g: number; b: number }) => {
      const channel = (value: number) => {
        const c = value / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const background = (element: Element) => {
      for (let node: Element | null = element; node; node = node.parentElement) {
        const colour = parse(getComputedStyle(node).backgroundColor);
        if (colour.a > 0.5) return colour;
      }
      return parse(getComputedStyle(document.documentElement).backgroundColor);
    };
    const selectors = ["#incidents-title", "#firing-count", ".badge.firing", ".badge.resolved", ".incident-name"];
    const shown = Array.from(
      document.querySelectorAll([...selectors, ".incident-meta > *", "#incidents-error"].join()),
    );
    const elements = shown.filter((element) => element.checkVisibility());
    const failing = elements
      .map((element) => {
        const [light, dark] = [luminance(parse(getComputedStyle(element).color)), luminance(background(element))].sort(
          (a, b) => b - a,
        );
        return { text: element.textContent, ratio: (light! + 0.05) / (dark! + 0.05) };
      })
      .filter((entry) => entry.ratio < 4.5);
    return { checked: elements.length, failing };
  });

const FIRING = {
  alertname: "PaymentHighErrorRate",
  service: "payment-service",
  severity: "critical",
  startsAt: "2026-12-01T19:36:44.119Z",
};
const RESOLVED = { alertname: "OrderLatencyHigh", service: "order-service", severity: "warning" };

describe.skipIf(!hasChromium)("incidents on the page", () => {
  const suite = useChromium();
  const directory = tempDirectory();
  let server: IntakeServer;
  let firingThread: string;
  let resolvedThread: string;
  beforeAll(async () => {
    server = await startIntakeServer(directory.path);
    suite.servers.push({ close: async () => (await server.close(), directory.remove()) });
    // The resolved incident is the newer one: firing first is the API's order, not the age.
    const firing = await deliver(server, group(FIRING));
    await server.intake.worker.idle();
    const resolved = await deliver(server, group({ ...RESOLVED, startsAt: "2026-12-01T20:10:00.000Z" }));
    await server.intake.worker.idle();
    await deliver(server, group({ ...RESOLVED, startsAt: "2026-12-01T20:10:00.000Z", status: "resolved" }));
    await server.intake.worker.idle();
    firingThread = `incident-${firing}`;
    resolvedThread = `incident-${resolved}`;
  });

  it("lists both incidents, firing first, and opens one's thread with its pause from the list", async () => {
    const context = await signedIn(
      await suite.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" }),
      "operator-token",
    );
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    await expect.poll(() => page.locator("#incident-list li").count()).toBe(2);
    const listed = await incidentsOf(page);
    expect(listed).toEqual([
      {
        badge: "firing",
        name: "PaymentHighErrorRate",
        meta: ["critical", "payment-service", "waiting for a person"],
        startsAt: FIRING.startsAt,
        current: false,
      },
      {
        badge: "resolved",
        name: "OrderLatencyHigh",
        meta: ["warning", "order-service", "answered"],
        startsAt: "2026-12-01T20:10:00.000Z",
        current: false,
      },
    ]);
    expect(await page.locator("#firing-count").textContent()).toBe("1 firing");
    expect(await page.locator("#incidents-error").isHidden()).toBe(true);
    expect(await lowContrast(page)).toEqual({ checked: 14, failing: [] });

    // The incident's thread is the on-call team's: an operator's thread list shows it too, waiting for them.
    await page.locator(`#thread-list a[href="/?thread=${firingThread}"]`).waitFor();
    await page
      .locator("#incident-list")
      .getByRole("link", { name: /PaymentHighErrorRate/ })
      .click();
    await page.locator("form.pause").waitFor();
    expect(new URL(page.url()).searchParams.get("thread")).toBe(firingThread);
    expect(await page.locator(".bubble.user").first().textContent()).toContain(
      "Alertmanager alert PaymentHighErrorRate is firing since 2026-12-01T19:36:44.119Z",
    );
    expect((await incidentsOf(page))[0]!.current).toBe(true);

    // The operator approves the investigation's write from the page; the list follows.
    await page.locator("form.pause button.approve").click();
    await page.locator(".run[data-state=final_answer]").last().waitFor();
    expect(await page.locator(".bubble.assistant").last().textContent()).toContain(
      "Restarted payment-service in prod.",
    );
    await expect
      .poll(async () => (await incidentsOf(page))[0]!.meta)
      .toEqual(["critical", "payment-service", "answered"]);
    await context.close();
  });

  it("opens an incident's thread from its ?thread= link, in Chinese, dark, at phone width", async () => {
    const context = await signedIn(
      await suite.browser.newContext({
        viewport: { width: 390, height: 844 },
        locale: "zh-CN",
        isMobile: true,
        colorScheme: "dark",
      }),
      "operator-token",
    );
    const page = await context.newPage();
    await page.goto(`${server.url}/?thread=${resolvedThread}`);
    await page.locator(".bubble.user").first().waitFor();
    expect(await page.locator(".bubble.user").first().textContent()).toContain(
      "Alertmanager alert OrderLatencyHigh is firing",
    );
    await page.locator("#incidents-panel:not([hidden])").waitFor();
    expect(await page.locator("#incidents-panel").getAttribute("open")).toBeNull();
    expect(await page.locator("#firing-count").textContent()).toBe("1 个告警中");
    await page.getByText("事件", { exact: true }).click();
    const listed = await incidentsOf(page);
    expect(listed.map(({ badge, current }) => ({ badge, current }))).toEqual([
      { badge: "告警中", current: false },
      { badge: "已恢复", current: true },
    ]);
    expect(listed[1]!.meta).toEqual(["warning", "order-service", "已回答"]);
    expect(await lowContrast(page)).toEqual({ checked: 14, failing: [] });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await context.close();
  });

  it("shows a viewer no incidents section and no error", async () => {
    const context = await signedIn(
      await suite.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" }),
      "viewer-token",
    );
    const page = await context.newPage();
    const refused = page.waitForResponse((response) => response.url().endsWith("/api/incidents"));
    await page.goto(`${server.url}/`);
    expect((await refused).status()).toBe(403);
    await page.locator("#incidents-panel[data-outcome=refused]").waitFor({ state: "attached", timeout: 5000 });
    await page.locator(".thread-list li").first().waitFor();
    expect(await page.locator("#incidents-panel").isHidden()).toBe(true);
    expect(await page.locator("#notice").isHidden()).toBe(true);
    expect(await page.locator("#incidents-error").isHidden()).toBe(true);
    await context.close();
  });

  it("says in one line when the incidents cannot be loaded, and the page goes on", async () => {
    const context = await signedIn(
      await suite.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" }),
      "operator-token",
    );
    await context.route("**/api/incidents", (route) =>
      route.fulfill({
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({ error: { code: "unavailable", message: "Storage is away." } }),
      }),
    );
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    await page.locator("#incidents-error:not([hidden])").waitFor();
    expect(await page.locator("#incidents-error").textContent()).toBe("Could not load incidents: Storage is away.");
    expect(await lowContrast(page)).toEqual({ checked: 2, failing: [] });
    await page.locator(".thread-list li").first().waitFor();
    expect(await page.locator("#notice").isHidden()).toBe(true);
    await context.close();
  });

  it("says silenced for an incident a silence holds, counts only firing ones, and says how a silenced one ended", async () => {
    const context = await signedIn(
      await suite.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" }),
      "operator-token",
    );
    const incident = (id: string, alertname: string, fields: Record<string, unknown>) => ({
      incidentId: id,
      source: "alertmanager",
      alertname,
      severity: "critical",
      labels: { service: "payment-service" },
      startsAt: FIRING.startsAt,
      silencedAt: null,
      silenceIds: [],
      resolvedAt: null,
      resolution: null,
      threadId: `incident-${id}`,
      investigation: { status: "finished", stopReason: "final_answer" },
      ...fields,
    });
    const silencedAt = "2026-12-01T19:50:00.000Z";
    const incidents = [
      incident("inc_a", "PaymentHighErrorRate", { status: "firing" }),
      incident("inc_b", "PaymentLatencyHigh", { status: "silenced", silencedAt, silenceIds: ["s1"] }),
      incident("inc_c", "PaymentErrorsHigh", {
        status: "resolved",
        silencedAt,
        silenceIds: ["s2"],
        resolvedAt: "2026-12-01T20:30:00.000Z",
        resolution: "resolved_while_silenced",
      }),
      incident("inc_d", "OrderLatencyHigh", {
        status: "resolved",
        resolvedAt: "2026-12-01T20:40:00.000Z",
        resolution: "alert_resolved",
      }),
    ];
    await context.route("**/api/incidents", (route) =>
      route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ incidents }) }),
    );
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    await expect.poll(() => page.locator("#incident-list li").count()).toBe(4);
    expect((await incidentsOf(page)).map(({ badge, name, meta }) => ({ badge, name, meta }))).toEqual([
      { badge: "firing", name: "PaymentHighErrorRate", meta: ["critical", "payment-service", "answered"] },
      { badge: "silenced", name: "PaymentLatencyHigh", meta: ["critical", "payment-service", "answered"] },
      {
        badge: "resolved",
        name: "PaymentErrorsHigh",
        meta: ["critical", "payment-service", "answered", "resolved while silenced"],
      },
      { badge: "resolved", name: "OrderLatencyHigh", meta: ["critical", "payment-service", "answered"] },
    ]);
    expect(await page.locator("#firing-count").textContent()).toBe("1 firing");
    expect((await lowContrast(page)).failing).toEqual([]);
    await context.close();
  });
});
