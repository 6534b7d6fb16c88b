import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/file.js";
import { ConfigError, ToolError } from "../../src/contracts/errors.js";
import type { AlertDelivery, DeliveryOutcome } from "../../src/service/incidents/alert-delivery.js";
import { createScheduleFindings } from "../../src/service/schedules/schedule-findings.js";
import type { IncidentRow } from "../../src/storage/types.js";

const alerts = { id: "alertmanager", role: "operator" as const };
const budget = {
  name: "budget",
  cron: "0 9 * * 1-5",
  timezone: "Europe/Berlin",
  message: "check payment-service's error budget",
  notify: true,
  incident: true,
};
const quiet = { ...budget, name: "quiet", incident: false };
const finding = { title: "budget burning", severity: "warning" as const, summary: "2.1% errors against 0.1%." };
/** Monday 2026-12-07 09:00 in Berlin. */
const DUE = Date.UTC(2026, 11, 7, 8, 0, 0);

/** Findings over an incidents service that records each delivery and answers `outcome`. */
function findingsWith(outcome: DeliveryOutcome, latest?: Partial<IncidentRow>) {
  const delivered: AlertDelivery[] = [];
  const findings = createScheduleFindings({
    schedules: [budget, quiet],
    incidents: {
      deliver: async (delivery) => {
        delivered.push(delivery);
        return { incidentId: "inc_1", outcome };
      },
    },
    storage: {
      incidents: {
        latestIncident: async () => ({ incident: latest as IncidentRow | undefined, episodes: latest ? 1 : 0 }),
      } as never,
    },
    user: alerts,
    publicUrl: "https://ops.example.com/",
  });
  return { findings, delivered };
}

describe("a scheduled check's finding", () => {
  it("opens an incident of source schedule, grouped by the schedule, from the check's own run", async () => {
    const { findings, delivered } = findingsWith("opened");
    const threadId = `schedule-budget-${DUE}`;
    expect(await findings.report(finding, { threadId, user: alerts })).toEqual({
      incidentId: "inc_1",
      outcome: "opened",
    });
    expect(delivered).toEqual([
      expect.objectContaining({
        source: "schedule",
        groupKey: "budget",
        status: "firing",
        alertname: "budget burning",
        severity: "warning",
        labels: { schedule: "budget", severity: "warning" },
        fingerprints: ["schedule:budget"],
        message: [
          "Scheduled check budget (due 2026-12-07 09:00 Europe/Berlin) reported a finding: budget burning",
          "Severity: warning",
          "What it found: 2.1% errors against 0.1%.",
          `The check's thread: ${threadId} (https://ops.example.com/?thread=${threadId})`,
          "Investigate: confirm the finding, find its cause with the metrics, logs and runbooks, and say what should be done.",
        ].join("\n"),
      }),
    ]);
    // A finding while the incident is open changes nothing.
    expect(await findingsWith("unchanged").findings.report(finding, { threadId, user: alerts })).toEqual({
      incidentId: "inc_1",
      outcome: "already_open",
    });
  });

  it("is refused outside a run of a schedule that opens incidents, or as another user, and nothing is delivered", async () => {
    const { findings, delivered } = findingsWith("opened");
    const refusals = [
      { threadId: "ops-chat", user: alerts },
      { threadId: `schedule-quiet-${DUE}`, user: alerts },
      { threadId: `schedule-unknown-${DUE}`, user: alerts },
      { threadId: `schedule-budget-${DUE}`, user: { id: "mallory", role: "viewer" as const } },
    ];
    for (const ctx of refusals) {
      const refused = await findings.report(finding, ctx).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ToolError);
      expect(refused).toMatchObject({ errorCode: "permission_denied" });
    }
    expect(delivered).toEqual([]);
  });

  it("is resolved by a run that found nothing only while its incident fires", async () => {
    const firing = findingsWith("resolved", { status: "firing", alertname: "budget burning", severity: "warning" });
    expect(await firing.findings.clear(budget, DUE, `schedule-budget-${DUE}`)).toBe("inc_1");
    expect(firing.delivered).toEqual([
      expect.objectContaining({
        source: "schedule",
        groupKey: "budget",
        status: "resolved",
        alertname: "budget burning",
        fingerprints: [],
        message: expect.stringMatching(
          /^Scheduled check budget \(due 2026-12-07 09:00 Europe\/Berlin\) answered without a finding: the incident is resolved\./,
        ),
      }),
    ]);
    const resolved = findingsWith("resolved", { status: "resolved", alertname: "budget burning" });
    expect(await resolved.findings.clear(budget, DUE, `schedule-budget-${DUE}`)).toBeUndefined();
    expect(await findingsWith("resolved").findings.clear(budget, DUE, `schedule-budget-${DUE}`)).toBeUndefined();
    expect(await firing.findings.clear(quiet, DUE, `schedule-quiet-${DUE}`)).toBeUndefined();
    expect(resolved.delivered).toEqual([]);
  });

  it("stops start-up when a schedule that opens incidents names its own user", () => {
    const refused = (() => {
      try {
        parseConfig({ schedules: [{ ...budget, user: "olga" }] }, {}, "opspilot.config.json");
        return "accepted";
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return error.message;
      }
    })();
    expect(refused).toBe(
      'opspilot.config.json: schedules[0].user: schedule budget opens incidents, so it runs as OPSPILOT_ALERT_USER, whose threads the on-call team shares: leave "user" out',
    );
  });
});
