import { InMemoryStore, type BaseStore } from "@langchain/langgraph";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import {
  PAST_INCIDENTS_NAMESPACE,
  incidentLikeKey,
  pastConclusions,
  pastIncidentsText,
  recordConclusion,
  type PastConclusion,
} from "../../../src/service/incidents/past-incidents.js";
import { SqliteStore } from "../../../src/storage/sqlite/sqlite-store.js";

const LABELS = { alertname: "PaymentHighErrorRate", service: "payment-service", env: "prod", severity: "critical" };
const DAY = 86_400_000;
const START = Date.UTC(2026, 11, 1, 19, 36, 44);

/** A conclusion of the payment alert, `days` after START. */
function conclusion(incidentId: string, days: number, overrides: Partial<PastConclusion> = {}): PastConclusion {
  return {
    incidentId,
    alertname: "PaymentHighErrorRate",
    labels: LABELS,
    threadId: `incident-${incidentId}`,
    link: `https://opspilot.example.com/#/threads/incident-${incidentId}`,
    conclusion: `Incident ${incidentId}: the DB pool was exhausted; raised it and restarted.`,
    stopReason: "final_answer",
    at: START + days * DAY,
    ...overrides,
  };
}

const query = { alertname: "PaymentHighErrorRate", labels: LABELS };

describe("incidentLikeKey", () => {
  it("is the same for the same alert and identifying labels, whatever their order and severity", () => {
    const key = incidentLikeKey("PaymentHighErrorRate", LABELS);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(incidentLikeKey("PaymentHighErrorRate", { env: "prod", service: "payment-service" })).toBe(key);
    expect(
      incidentLikeKey("PaymentHighErrorRate", { severity: "warning", env: "prod", service: "payment-service" }),
    ).toBe(key);
  });

  it("differs for another alert, another label value or one more label", () => {
    const key = incidentLikeKey("PaymentHighErrorRate", LABELS);
    expect(incidentLikeKey("PaymentLatencyHigh", LABELS)).not.toBe(key);
    expect(incidentLikeKey("PaymentHighErrorRate", { ...LABELS, env: "staging" })).not.toBe(key);
    expect(incidentLikeKey("PaymentHighErrorRate", { ...LABELS, instance: "10.0.0.7:9100" })).not.toBe(key);
  });
});

describe.each([
  ["InMemoryStore", () => new InMemoryStore() as BaseStore],
  ["SqliteStore", () => new SqliteStore(new BetterSqlite3(":memory:")) as BaseStore],
])("past incidents over %s", (_name, open) => {
  it("returns the newest three by time, without the incident being opened or other alerts", async () => {
    const store = open();
    // Written out of time order: the store's own order must not decide.
    for (const [id, days] of [
      ["inc_b", 2],
      ["inc_e", 5],
      ["inc_a", 1],
      ["inc_d", 4],
      ["inc_c", 3],
    ] as const)
      await recordConclusion(store, conclusion(id, days));
    await recordConclusion(store, conclusion("inc_other", 9, { alertname: "DiskFull" }));
    await recordConclusion(store, conclusion("inc_staging", 9, { labels: { ...LABELS, env: "staging" } }));

    const found = await pastConclusions(store, { ...query, excludeIncidentId: "inc_e" });
    expect(found.map((item) => item.incidentId)).toEqual(["inc_d", "inc_c", "inc_b"]);
    expect(found[0]).toEqual(conclusion("inc_d", 4));
    expect((await pastConclusions(store, { ...query, limit: 10 })).map((item) => item.incidentId)).toEqual([
      "inc_e",
      "inc_d",
      "inc_c",
      "inc_b",
      "inc_a",
    ]);
    expect(await pastConclusions(store, { alertname: "NeverFired", labels: {} })).toEqual([]);
  });

  it("keeps one conclusion per incident: a second answer replaces the first", async () => {
    const store = open();
    await recordConclusion(store, conclusion("inc_a", 1));
    await recordConclusion(store, conclusion("inc_a", 2, { conclusion: "Second answer: it was the cache." }));
    expect(await pastConclusions(store, query)).toEqual([
      conclusion("inc_a", 2, { conclusion: "Second answer: it was the cache." }),
    ]);
  });

  it("finds the newest among more conclusions than one search returns", async () => {
    const store = open();
    for (let n = 0; n < 130; n += 1) await recordConclusion(store, conclusion(`inc_${n}`, n === 7 ? 1000 : n));
    const found = await pastConclusions(store, query);
    expect(found.map((item) => item.incidentId)).toEqual(["inc_7", "inc_129", "inc_128"]);
  });

  it("leaves out items of the namespace that are no conclusion, and those below it", async () => {
    const store = open();
    const namespace = [...PAST_INCIDENTS_NAMESPACE, incidentLikeKey(query.alertname, query.labels)];
    await recordConclusion(store, conclusion("inc_a", 1));
    await store.put(namespace, "junk", { note: "written by hand in Studio" });
    await store.put(namespace, "inc_forged", { ...conclusion("inc_forged", 5), alertname: "DiskFull" });
    await store.put([...namespace, "deeper"], "inc_deep", conclusion("inc_deep", 6));
    expect((await pastConclusions(store, query)).map((item) => item.incidentId)).toEqual(["inc_a"]);
  });

  it("refuses a conclusion that does not fit, naming the fields, and writes nothing", async () => {
    const store = open();
    const bad = { ...conclusion("inc_a", 1), link: "", stopReason: "gave_up" } as unknown as PastConclusion;
    await expect(recordConclusion(store, bad)).rejects.toThrow(
      /Cannot record the incident's conclusion: link: .*; stopReason: /,
    );
    expect(await store.search([...PAST_INCIDENTS_NAMESPACE])).toEqual([]);
  });
});

describe("pastIncidentsText", () => {
  it("is empty when there are none", () => {
    expect(pastIncidentsText([])).toBe("");
  });

  it("lists each with its UTC minute, link, how it ended and its conclusion on one indented line", () => {
    const text = pastIncidentsText([
      conclusion("inc_b", 2, { conclusion: "Pool exhausted.\n\nRaised max_connections to 200." }),
      conclusion("inc_a", 1, { stopReason: "max_steps", conclusion: "Found so far: errors began at 19:30." }),
    ]);
    expect(text).toBe(
      [
        "Past incidents like this one (newest first):",
        "- 2026-12-03 19:36 UTC, https://opspilot.example.com/#/threads/incident-inc_b",
        "  Pool exhausted. Raised max_connections to 200.",
        "- 2026-12-02 19:36 UTC, https://opspilot.example.com/#/threads/incident-inc_a (stopped: max_steps)",
        "  Found so far: errors began at 19:30.",
      ].join("\n"),
    );
  });

  it("masks secrets before cutting a long conclusion to about 600 characters, never splitting a marker", () => {
    // The email's marker, "[email masked]", would straddle the cut.
    const long = `${"The pool ran dry again. ".repeat(24)}Mail to ops ops-lead@example.com at once.`;
    const [, , line] = pastIncidentsText([conclusion("inc_a", 1, { conclusion: long })]).split("\n");
    expect(line).toBe(`  ${"The pool ran dry again. ".repeat(24)}Mail to ops…`);
    const short = pastIncidentsText([conclusion("inc_a", 1, { conclusion: "Set password=hunter2secret again." })]);
    expect(short.split("\n")[2]).toBe("  Set password=[masked] again.");
  });
});
