import { beforeAll, describe, expect, it } from "vitest";
import { tempDirectory } from "../fixtures/alert-server.js";
import { hasChromium, useChromium } from "../fixtures/browser.js";
import {
  incidentScript,
  QUERY_CALL,
  startTimelineServer,
  walkIncident,
  type TimelineServer,
} from "../fixtures/incident-timeline.js";
import { answerMessage } from "../fixtures/scripted-model.js";

describe.skipIf(!hasChromium)("an incident's timeline and postmortem on the page", () => {
  const suite = useChromium();
  const directory = tempDirectory();
  let server: TimelineServer;
  let threadId: string;
  let incidentId: string;
  beforeAll(async () => {
    server = await startTimelineServer(
      directory.path,
      incidentScript([answerMessage(`payment-service reported 9 errors per second [${QUERY_CALL}].`)]),
    );
    suite.servers.push({ close: async () => (await server.close(), directory.remove()) });
    ({ threadId, incidentId } = await walkIncident(server));
  }, 30_000);

  it("shows the timeline in UTC with local time, the draft, its download, and opens a cited call's result", async () => {
    const context = await suite.browser.newContext({
      viewport: { width: 1280, height: 900 },
      locale: "en-US",
      timezoneId: "Asia/Tokyo",
    });
    await context.addInitScript(() => window.localStorage.setItem("opspilot.token", "operator-token"));
    const page = await context.newPage();
    await page.goto(`${server.url}/?thread=${threadId}`);
    await page.locator("#incident-record[data-outcome=shown]").waitFor();
    expect(await page.locator("#incident-record").getAttribute("data-incident-id")).toBe(incidentId);

    await page.locator("#timeline-panel summary").click();
    const items = await page.locator("#timeline-list li").evaluateAll((rows) =>
      rows.map((row) => ({
        kind: (row as HTMLElement).dataset.kind,
        datetime: row.querySelector("time")?.getAttribute("datetime"),
        utc: row.querySelector("time")?.textContent,
        local: row.querySelector(".local-time")?.textContent,
      })),
    );
    expect(items.map((item) => item.kind)).toEqual([
      ...["alert", "run_started", "step", "conclusion", "run_finished", "alert", "run_started", "pause"],
      ...["run_finished", "run_started", "answer", "action", "conclusion", "run_finished", "alert"],
    ]);
    const first = items[0]!;
    expect(first.utc).toBe(`${first.datetime!.slice(11, 19)} UTC`);
    // Tokyo is UTC+9: the local time shown beside is nine hours on.
    const tokyo = new Date(Date.parse(first.datetime!) + 9 * 3_600_000).toISOString().slice(11, 19);
    expect(first.local).toBe(`(${tokyo})`);
    expect(await page.locator("#timeline-list li[data-kind=answer] .entry-text").textContent()).toBe(
      "olivia (operator): approve silence_alert",
    );

    await page.locator("#postmortem-panel summary").click();
    expect(await page.locator("#postmortem-text h1").textContent()).toBe(
      `Postmortem draft: PaymentErrorsHigh (${incidentId})`,
    );
    expect(await page.locator("#postmortem-text").textContent()).toContain("approved by olivia (operator)");
    const download = page.waitForEvent("download");
    await page.locator("#postmortem-download").click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe(`postmortem-${incidentId}.md`);

    // A citation opens the call's result in the conversation, on this page.
    await page.locator(`#postmortem-text a[href$="#call-${QUERY_CALL}"]`).first().click();
    const card = page.locator(`.call[data-call-id="${QUERY_CALL}"]`);
    await card.locator("details.result[open] .result-text").waitFor();
    expect(await card.locator(".result-text").textContent()).toContain('"threshold": 5');
    expect(new URL(page.url()).searchParams.get("thread")).toBe(threadId);
    await context.close();
  });

  it("shows a viewer no incident record", async () => {
    const context = await suite.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" });
    await context.addInitScript(() => window.localStorage.setItem("opspilot.token", "viewer-token"));
    const page = await context.newPage();
    const refused = page.waitForResponse((response) => response.url().endsWith("/timeline"));
    await page.goto(`${server.url}/?thread=${threadId}`);
    expect((await refused).status()).toBe(403);
    await page.locator("#incident-record[data-outcome=failed]").waitFor({ state: "attached" });
    expect(await page.locator("#incident-record").isHidden()).toBe(true);
    expect(await page.locator("#incident-record-error").isHidden()).toBe(true);
    await context.close();
  });
});
