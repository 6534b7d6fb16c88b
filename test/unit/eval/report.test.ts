import { describe, expect, it } from "vitest";
import { compareReports } from "../../../src/eval/report/compare.js";
import { escapeHtml } from "../../../src/eval/report/html-report.js";
import { reportScenario, summarize, type EvalReport, type ReportScenario } from "../../../src/eval/report/report.js";
import { scoreOf } from "../../../src/eval/checks/index.js";
import { progressReporter, renderSummary } from "../../../src/eval/report/terminal.js";
import type { ScenarioTrace } from "../../../src/eval/trace.js";

const entry = (id: string, score: number): ReportScenario => ({
  id,
  passed: score === 1,
  score,
  steps: 3,
  tokens: 100,
  costUsd: 0,
  checks: [],
});
const report = (scenarios: ReportScenario[]): EvalReport => ({
  model: "demo",
  startedAt: "2026-01-01T00:00:00.000Z",
  scenarios,
  summary: summarize(scenarios),
});

describe("scores and reports", () => {
  it("scores the share of checks passed, and zero when an invariant failed", () => {
    const pass = (name: "tools" | "args" | "invariants") => ({ name, passed: true, detail: "" });
    const fail = (name: "tools" | "args" | "invariants") => ({ name, passed: false, detail: "" });
    expect(scoreOf([pass("tools"), fail("args"), pass("invariants")])).toBeCloseTo(2 / 3);
    expect(scoreOf([pass("tools"), pass("args"), fail("invariants")])).toBe(0);
  });

  it("averages repeats and marks a check failed when it failed in any run", () => {
    const trace = { steps: 2, tokens: 10, costUsd: 0, latencyMs: 5 } as ScenarioTrace;
    const ok = { name: "tools" as const, passed: true, detail: "called search_docs" };
    const bad = { name: "tools" as const, passed: false, detail: "never called search_docs" };
    const result = reportScenario({ id: "s" }, "f.yaml", [
      { checks: [ok], score: 1, trace },
      { checks: [bad], score: 0, trace },
    ]);
    expect(result).toMatchObject({ passed: false, score: 0.5, steps: 2 });
    expect(result.checks).toEqual([
      { name: "tools", passed: false, detail: "failed in 1 of 2 runs: never called search_docs" },
    ]);
  });

  it("lists the scenarios that got worse or better against an earlier report", () => {
    const before = report([entry("a", 1), entry("b", 0.5), entry("c", 1), entry("gone", 1)]);
    const after = report([entry("a", 0.75), entry("b", 1), entry("c", 1), entry("new", 1)]);
    const compare = compareReports(before, after, "old/report.json");
    expect(compare.worse).toEqual([{ id: "a", before: 1, after: 0.75, delta: -0.25 }]);
    expect(compare.better).toEqual([{ id: "b", before: 0.5, after: 1, delta: 0.5 }]);
    expect(compare).toMatchObject({ added: ["new"], removed: ["gone"], scoreBefore: 0.875 });
    expect(renderSummary({ ...after, compare })).toContain(
      "worse:\n  a: 1.00 → 0.75 (-0.25)\nbetter:\n  b: 0.50 → 1.00 (+0.50)\nnew: new\nnot run now: gone",
    );
  });

  it("escapes every character that could open markup", () => {
    expect(escapeHtml(`<img src=x onerror="alert('x')">&`)).toBe(
      "&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;",
    );
  });
});

describe("progress", () => {
  it("draws a bar in place on a terminal and prints plain lines otherwise", () => {
    let tty = "";
    const bar = progressReporter({ isTTY: true, write: (text: string) => (tty += text) });
    bar.update(1, 4, "seed", 1);
    bar.end();
    expect(tty).toBe("\r\x1b[2K[######------------------] scenario 1 of 4: seed\r\x1b[2K");
    let plain = "";
    const lines = progressReporter({ isTTY: false, write: (text: string) => (plain += text) });
    lines.update(1, 4, "seed", 1);
    lines.update(2, 4, "reject", 0.5);
    lines.end();
    expect(plain).toBe("scenario 1 of 4: seed 1.00\nscenario 2 of 4: reject 0.50\n");
  });
});
