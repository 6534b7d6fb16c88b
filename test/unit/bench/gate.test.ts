import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bestOf, readBaseline, regressions, writeBaseline, type Baseline } from "../../../bench/gate.js";
import { stepRatios } from "../../../bench/report.js";
import { tableCategory } from "../../../bench/sqlite-bytes.js";
import type { PeerResult } from "../../../bench/step-cost.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-gate-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const baseline = (ratios: Record<string, number>): Baseline => ({
  generatedAt: "2026-01-01T00:00:00.000Z",
  loadAverage: [0.5, 0.5, 0.5],
  ratios,
});

describe("the bench regression gate", () => {
  it("fails a ratio more than 30 % above its baseline and passes one within it", () => {
    const found = regressions(
      { "step cpu: a": 1.31, "step cpu: b": 1.29, "step cpu: c": 0.5 },
      baseline({ "step cpu: a": 1, "step cpu: b": 1, "step cpu: c": 1 }),
    );
    expect(found).toEqual([{ name: "step cpu: a", baseline: 1, current: 1.31 }]);
  });

  it("compares a noisy ratio whose baseline is under its floor with the floor", () => {
    const base = baseline({ "parallel reads: 8 / 1": 1.0, "paused threads: resume, many / few": 0.9 });
    expect(regressions({ "parallel reads: 8 / 1": 1.45, "paused threads: resume, many / few": 2.55 }, base)).toEqual(
      [],
    );
    expect(regressions({ "parallel reads: 8 / 1": 1.5, "paused threads: resume, many / few": 2.65 }, base)).toEqual([
      { name: "parallel reads: 8 / 1", baseline: 1.0, current: 1.5 },
      { name: "paused threads: resume, many / few", baseline: 0.9, current: 2.65 },
    ]);
  });

  it("fails a ratio with a goal above that goal, even within 30 % of its baseline", () => {
    const step40 = "request tokens: opspilot / createAgent+summarization, step 40";
    const thread = "request tokens: opspilot / createAgent+summarization, whole thread";
    const base = baseline({ [step40]: 0.5, [thread]: 0.3 });
    expect(regressions({ [step40]: 0.6, [thread]: 0.38 }, base)).toEqual([]);
    expect(regressions({ [step40]: 0.61, [thread]: 0.4 }, base)).toEqual([
      { name: step40, baseline: 0.5, current: 0.61, goal: 0.6 },
      { name: thread, baseline: 0.3, current: 0.4 },
    ]);
  });

  it("skips ratios the baseline does not have", () => {
    expect(regressions({ "a new ratio": 9 }, baseline({}))).toEqual([]);
  });

  it("keeps the lower of two measurements of each ratio", () => {
    expect(bestOf({ a: 1.5, b: 0.8, c: 2 }, { a: 1.1, b: 0.9 })).toEqual({ a: 1.1, b: 0.8, c: 2 });
  });

  it("writes a baseline it reads back, and names the file and the fix when there is none or it is malformed", () => {
    const file = join(directory, "baseline.json");
    writeBaseline(file, { "step cpu: a": 1.23456 }, [1, 2, 3]);
    expect(readBaseline(file)).toMatchObject({ loadAverage: [1, 2, 3], ratios: { "step cpu: a": 1.235 } });
    expect(() => readBaseline(join(directory, "missing.json"))).toThrow(
      `no baseline at ${join(directory, "missing.json")}: write one with "npm run bench -- --quick --write-baseline"`,
    );
    const bad = join(directory, "bad.json");
    writeFileSync(bad, JSON.stringify({ ratios: { a: "fast" } }));
    expect(() => readBaseline(bad)).toThrow(`${bad} is not a bench baseline`);
  });
});

describe("the storage figures' table groups", () => {
  it("sorts SqliteSaver's, opspilot's and the demo dataset's tables", () => {
    expect(
      ["checkpoints", "writes", "opspilot_results", "opspilot_events", "opspilot_runs", "ops_logs"].map(tableCategory),
    ).toEqual(["checkpoints", "writes", "results", "events", "records", "other"]);
  });
});

describe("the step-cost ratios", () => {
  const result = (peer: string, perRun: number[]): PeerResult =>
    ({ peer, payload: "small", perRunMsPerStep: perRun, perRunCpuMsPerStep: perRun }) as PeerResult;

  it("pairs each round, takes the median, and never compares a peer with itself", () => {
    const ratios = stepRatios([
      result("create_react_agent", [2, 2, 2]),
      result("create_agent", [8, 8, 8]),
      result("opspilot_graph", [4, 3, 6]),
      result("opspilot_runtime", [4, 6, 9]),
      result("opspilot_runtime_latest", [6, 6, 9]),
    ]);
    expect(ratios.map((ratio) => [ratio.label, ratio.cpu])).toEqual([
      ["opspilot_graph / create_react_agent, small", 2],
      ["opspilot_runtime / create_react_agent, small", 3],
      ["opspilot_runtime_latest / create_react_agent, small", 3],
      ["opspilot_graph / create_agent, small", 0.5],
      ["opspilot_runtime / opspilot_graph, small", 1.5],
      ["opspilot_runtime_latest / opspilot_runtime, small", 1],
    ]);
  });
});
