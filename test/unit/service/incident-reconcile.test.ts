import { describe, expect, it } from "vitest";
import { reconcile, type ListedAlert } from "../../../src/service/incidents/reconcile.js";
import { createSilenceReconciler } from "../../../src/service/incidents/silence-reconciler.js";
import type { ToolsetClient, ToolsetRequest } from "../../../src/tools/toolsets/http-client.js";
import type { IncidentChange, IncidentRow, IncidentStore } from "../../../src/storage/types.js";
import type { IncidentSilence } from "../../../src/storage/incidents/incident-store.js";

const active = (fingerprint: string): ListedAlert => ({
  fingerprint,
  status: { state: "active", silencedBy: [], inhibitedBy: [] },
});
const silencedBy = (fingerprint: string, ...ids: string[]): ListedAlert => ({
  fingerprint,
  status: { state: "suppressed", silencedBy: ids, inhibitedBy: [] },
});
const inhibited = (fingerprint: string): ListedAlert => ({
  fingerprint,
  status: { state: "suppressed", silencedBy: [], inhibitedBy: ["other"] },
});

const firing = { fingerprints: ["a", "b"] };
const silenced = { fingerprints: ["a", "b"], silencedAt: 1_000, silenceIds: ["s1"] };

describe("reconcile", () => {
  it("resolves a silenced incident whose alerts Alertmanager no longer lists", () => {
    expect(reconcile(silenced, [])).toEqual({ kind: "resolve" });
    // Other alerts of the same name are not its own.
    expect(reconcile(silenced, [active("c"), silencedBy("d", "s1")])).toEqual({ kind: "resolve" });
  });

  it("leaves an incident never silenced to Alertmanager's own resolved notice when its alerts are gone", () => {
    expect(reconcile(firing, [])).toEqual({ kind: "unchanged" });
    expect(reconcile({ fingerprints: [] }, [active("a")])).toEqual({ kind: "unchanged" });
  });

  it("marks an incident silenced when every one of its alerts is held by a silence, naming the silences sorted", () => {
    expect(reconcile(firing, [silencedBy("b", "s2"), silencedBy("a", "s1", "s2"), active("c")])).toEqual({
      kind: "silenced",
      silenceIds: ["s1", "s2"],
    });
    // One alert of two still listed and silenced: the other ended.
    expect(reconcile(firing, [silencedBy("a", "s1")])).toEqual({ kind: "silenced", silenceIds: ["s1"] });
  });

  it("changes nothing while the same silences hold a silenced incident, and names new ones", () => {
    expect(reconcile(silenced, [silencedBy("a", "s1"), silencedBy("b", "s1")])).toEqual({ kind: "unchanged" });
    expect(reconcile(silenced, [silencedBy("a", "s3")])).toEqual({ kind: "silenced", silenceIds: ["s3"] });
  });

  it("shows a silenced incident firing again when one of its alerts fires unsilenced, or is only inhibited", () => {
    expect(reconcile(silenced, [silencedBy("a", "s1"), active("b")])).toEqual({ kind: "firing" });
    expect(reconcile(silenced, [inhibited("a")])).toEqual({ kind: "firing" });
    expect(reconcile(firing, [active("a"), silencedBy("b", "s1")])).toEqual({ kind: "unchanged" });
  });
});

const row = (incidentId: string, overrides: Partial<IncidentRow> = {}): IncidentRow => ({
  incidentId,
  source: "alertmanager",
  groupKey: `{}:{alertname="${incidentId}"}`,
  threadId: `incident-${incidentId}`,
  status: "firing",
  alertname: "PaymentErrorsHigh",
  severity: "page",
  labels: { alertname: "PaymentErrorsHigh" },
  startsAt: "2026-12-01T19:36:44.119Z",
  fingerprints: [`fp-${incidentId}`],
  createdAt: 1,
  ...overrides,
});

/** Incidents kept in memory, with the changes and silences applied to them, as the store applies them. */
function memoryIncidents(rows: IncidentRow[]) {
  const changes: IncidentChange[] = [];
  const store: Pick<IncidentStore, "listIncidents" | "setIncidentSilence" | "changeIncident" | "getIncident"> = {
    listIncidents: (limit) => Promise.resolve(rows.slice(0, limit)),
    getIncident: (id) => Promise.resolve(rows.find((incident) => incident.incidentId === id)),
    setIncidentSilence(id, silence: IncidentSilence | null) {
      const index = rows.findIndex((incident) => incident.incidentId === id && incident.status === "firing");
      if (index < 0) return Promise.resolve(false);
      const { silencedAt: _at, silenceIds: _ids, ...rest } = rows[index]!;
      rows[index] = silence ? { ...rest, silencedAt: silence.at, silenceIds: silence.silenceIds } : rest;
      return Promise.resolve(true);
    },
    changeIncident(change) {
      const index = rows.findIndex((incident) => incident.incidentId === change.incidentId);
      const known = rows[index];
      if (!known || known.status !== "firing" || known.fingerprints.join() !== change.expectedFingerprints.join())
        return Promise.resolve(false);
      changes.push(change);
      rows[index] = {
        ...known,
        status: change.status,
        fingerprints: change.fingerprints,
        ...(change.resolvedAt ? { resolvedAt: change.resolvedAt, resolution: change.resolution } : {}),
      };
      return Promise.resolve(true);
    },
  };
  return { store, changes, rows };
}

/** A client that answers each alert listing with `alerts(alertname)`, recording the requests. */
function alertmanagerOf(alerts: (alertname: string) => unknown) {
  const requests: ToolsetRequest[] = [];
  const client: ToolsetClient = {
    label: "Alertmanager",
    timeoutMs: 1_000,
    send(request) {
      requests.push(request);
      const filter = String(request.query?.filter ?? "");
      return Promise.resolve({
        status: 200,
        body: alerts(JSON.parse(filter.slice(filter.indexOf("=") + 1)) as string),
      });
    },
  };
  return { client, requests };
}

describe("the silence reconciler", () => {
  it("lists each alert name's alerts once, with every state and a filter, and applies what it decides", async () => {
    const { store, changes, rows } = memoryIncidents([
      row("gone", { silencedAt: 500, silenceIds: ["s1"] }),
      row("held"),
      row("again", { alertname: "DiskFull", silencedAt: 700, silenceIds: ["s9"] }),
      row("paged", { source: "pagerduty", silencedAt: 700 }),
      row("done", { status: "resolved", resolvedAt: 5 }),
    ]);
    const { client, requests } = alertmanagerOf((alertname) =>
      alertname === "DiskFull" ? [active("fp-again")] : [silencedBy("fp-held", "s2"), active("fp-other")],
    );
    const resolved: IncidentRow[] = [];
    let kicks = 0;
    const reconciler = createSilenceReconciler({
      storage: { incidents: store },
      alertmanager: client,
      worker: { kick: () => Promise.resolve(void (kicks += 1)) },
      onResolved: (incident) => void resolved.push(incident),
      logger: { error: (message) => expect.fail(message) },
      now: () => 9_000,
    });

    expect(await reconciler.sweep(new AbortController().signal)).toEqual({
      unchanged: 0,
      silenced: 1,
      firing: 1,
      resolve: 1,
    });
    expect(requests.map((request) => [request.path, request.query])).toEqual(
      ["PaymentErrorsHigh", "DiskFull"].map((alertname) => [
        "/api/v2/alerts",
        {
          active: "true",
          silenced: "true",
          inhibited: "true",
          unprocessed: "true",
          filter: `alertname="${alertname}"`,
        },
      ]),
    );
    expect(changes).toEqual([
      {
        incidentId: "gone",
        expectedFingerprints: ["fp-gone"],
        fingerprints: [],
        status: "resolved",
        resolvedAt: 9_000,
        resolution: "resolved_while_silenced",
        kind: "note",
        message:
          "PaymentErrorsHigh resolved while silenced (silence s1): Alertmanager no longer lists any of its alerts. " +
          "Alertmanager sends no resolved notice for a silenced alert, so opspilot checked its API.",
      },
    ]);
    expect(kicks).toBe(1);
    expect(resolved).toEqual([expect.objectContaining({ incidentId: "gone", status: "resolved", resolvedAt: 9_000 })]);
    expect(rows.find((incident) => incident.incidentId === "held")).toMatchObject({
      silencedAt: 9_000,
      silenceIds: ["s2"],
    });
    expect(rows.find((incident) => incident.incidentId === "again")).not.toHaveProperty("silencedAt");
    // PagerDuty's incidents and resolved ones are not Alertmanager's to reconcile.
    expect(rows.find((incident) => incident.incidentId === "paged")).toMatchObject({
      status: "firing",
      silencedAt: 700,
    });

    // The next sweep finds nothing to change.
    expect(await reconciler.sweep(new AbortController().signal)).toEqual({
      unchanged: 2,
      silenced: 0,
      firing: 0,
      resolve: 0,
    });
    expect(resolved).toHaveLength(1);
  });

  it("rejects when Alertmanager answers with something that is no alert list, changing nothing", async () => {
    const { store, changes, rows } = memoryIncidents([row("gone", { silencedAt: 500 })]);
    const reconciler = createSilenceReconciler({
      storage: { incidents: store },
      alertmanager: alertmanagerOf(() => ({ error: "nope" })).client,
      worker: { kick: () => Promise.resolve() },
      logger: { error: () => undefined },
    });
    await expect(reconciler.sweep(new AbortController().signal)).rejects.toThrow(
      "Alertmanager's GET /api/v2/alerts answered with an unexpected body",
    );
    expect(changes).toEqual([]);
    expect(rows[0]).toMatchObject({ status: "firing", silencedAt: 500 });
  });

  it("leaves an incident that a delivery changed first to that delivery", async () => {
    const { store, rows } = memoryIncidents([row("raced", { silencedAt: 500 })]);
    const resolved: IncidentRow[] = [];
    const reconciler = createSilenceReconciler({
      storage: {
        incidents: {
          ...store,
          // Alertmanager's own resolution landed between the listing and the change.
          changeIncident: () => Promise.resolve(false),
        },
      },
      alertmanager: alertmanagerOf(() => []).client,
      worker: { kick: () => expect.fail("nothing to deliver") },
      onResolved: (incident) => void resolved.push(incident),
      logger: { error: () => undefined },
    });
    expect((await reconciler.sweep(new AbortController().signal)).resolve).toBe(0);
    expect(resolved).toEqual([]);
    expect(rows[0]!.status).toBe("firing");
  });
});
