import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EvalReportSchema, type EvalReport } from "../../src/eval/report/report.js";
import { runCliProcess } from "../fixtures/cli-process.js";

const folder = mkdtempSync(join(tmpdir(), "opspilot-eval-cli-"));
const run = (args: string[]) =>
  runCliProcess(args, { db: join(folder, "unused.sqlite"), entry: "src/eval/main.ts" }, 120_000);

describe("npm run eval", () => {
  it("scores the shipped scenarios on the demo model above the CI threshold and writes both reports", async () => {
    const out = join(folder, "full");
    const result = await run(["--model", "demo", "--out", out, "--concurrency", "4", "--min-score", "0.95"]);
    expect(result.stderr).not.toContain("below");
    expect(result.code).toBe(0);
    const report = EvalReportSchema.parse(JSON.parse(readFileSync(join(out, "report.json"), "utf8")));
    expect(report.model).toBe("demo");
    expect(report.summary.total).toBeGreaterThanOrEqual(40);
    expect(report.summary.total).toBe(report.scenarios.length);
    expect(report.summary.score).toBeGreaterThanOrEqual(0.95);
    // Without a terminal, progress is one plain line per scenario.
    expect(result.stderr).toContain(`scenario ${report.summary.total} of ${report.summary.total}: `);
    expect(result.stdout).toMatch(/^SCENARIO\s+RESULT\s+SCORE\s+STEPS\s+TOKENS\s+COST\s+FIRST FAILED CHECK$/m);
    expect(result.stdout).toContain(
      `model demo: ${report.summary.passed} of ${report.summary.total} scenarios passed, score ${report.summary.score.toFixed(3)}`,
    );
    const seed = report.scenarios.find((scenario) => scenario.id === "seed-payment-errors-zh")!;
    expect(seed).toMatchObject({ passed: true, score: 1, steps: 3 });
    expect(seed.checks.map((check) => check.name)).toEqual([
      "tools",
      "args",
      "steps",
      "pauses",
      "evidence",
      "fabrication",
      "invariants",
    ]);
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain('id="s-seed-payment-errors-zh"');
  }, 150_000);

  it("exits 1 with one clear line when the score is below --min-score", async () => {
    const file = join(folder, "impossible.yaml");
    writeFileSync(
      file,
      "- id: greeting\n  question: 你好\n- id: greeting-needs-logs\n  question: 你好\n  expect: { tools: { required: [search_logs] } }\n",
    );
    const out = join(folder, "below");
    const result = await run(["--model", "demo", "--scenarios", file, "--out", out, "--min-score", "0.95"]);
    const report = EvalReportSchema.parse(JSON.parse(readFileSync(join(out, "report.json"), "utf8")));
    expect(report.summary).toEqual({ total: 2, passed: 1, score: 0.917 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("opspilot eval: score 0.917 is below --min-score 0.95 (model demo)\n");
    expect(result.stdout).toMatch(
      /^greeting-needs-logs\s+FAIL\s+0\.83\s+1\s+\d+\s+0\.0000\s+tools: never called search_logs$/m,
    );
  }, 60_000);

  it("passes at a threshold under the score and lists what got better against an earlier report", async () => {
    const earlier: EvalReport = {
      model: "openai:older",
      startedAt: "2026-01-01T00:00:00.000Z",
      scenarios: [
        { id: "seed-payment-errors-zh", passed: false, score: 0.5, steps: 6, tokens: 1, costUsd: 0, checks: [] },
        { id: "seed-payment-errors-en", passed: true, score: 1, steps: 3, tokens: 1, costUsd: 0, checks: [] },
      ],
      summary: { total: 2, passed: 1, score: 0.75 },
    };
    const earlierPath = join(folder, "earlier.json");
    writeFileSync(earlierPath, JSON.stringify(earlier));
    const out = join(folder, "compare");
    const result = await run([
      "--model",
      "demo",
      "--scenarios",
      "eval/scenarios/01-seed.yaml",
      "--out",
      out,
      "--compare",
      earlierPath,
      "--min-score",
      "0.9",
    ]);
    expect(result.stderr).not.toContain("below");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`compared with ${earlierPath} (openai:older, score 0.750):`);
    expect(result.stdout).toContain(
      "worse: none\nbetter:\n  seed-payment-errors-zh: 0.50 → 1.00 (+0.50)\nnew: seed-payment-errors-prod-parallel-zh, seed-payment-errors-staging-en\n",
    );
    const report = EvalReportSchema.parse(JSON.parse(readFileSync(join(out, "report.json"), "utf8")));
    expect(report.compare?.better[0]).toEqual({ id: "seed-payment-errors-zh", before: 0.5, after: 1, delta: 0.5 });
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain(`Compared with ${earlierPath}`);
  }, 60_000);

  it("refuses bad flags, bad scenario files and unknown tools with exit code 2 and one line", async () => {
    const badFlag = await run(["--repeat", "zero"]);
    expect(badFlag).toMatchObject({
      code: 2,
      stderr: "opspilot eval: --repeat zero: must be a whole number from 1 to 100\n",
    });

    const badFile = join(folder, "bad.yaml");
    writeFileSync(badFile, "id: broken\nquestion: hi\nexpect: { steps: { max: -1 } }\n");
    const badScenario = await run(["--scenarios", badFile]);
    expect(badScenario.code).toBe(2);
    expect(badScenario.stderr).toBe(
      `opspilot eval: ${badFile}: scenario "broken": expect.steps.max: Too small: expected number to be >0\n`,
    );

    const unknownTool = join(folder, "unknown-tool.yaml");
    writeFileSync(unknownTool, "id: tickets\nquestion: hi\nexpect: { tools: { required: [jira__search] } }\n");
    const unknown = await run(["--scenarios", unknownTool, "--out", join(folder, "unknown")]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      `opspilot eval: ${unknownTool}: scenario "tickets": expect.tools.required[0]: unknown tool "jira__search" (this app has: `,
    );
    expect(existsSync(join(folder, "unknown", "report.json"))).toBe(false);

    const badModel = await run(["--model", "gpt4", "--scenarios", unknownTool]);
    expect(badModel.code).toBe(2);
    expect(badModel.stderr).toContain('opspilot eval: OPSPILOT_MODEL "gpt4" is not supported');
  }, 60_000);
});
