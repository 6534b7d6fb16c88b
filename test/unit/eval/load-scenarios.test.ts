import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadScenarios, parseScenarios } from "../../../src/eval/load-scenarios.js";
import { DEFAULT_SCENARIOS } from "../../../src/eval/args.js";
import { SCENARIO_SCHEMA_FILE, scenarioJsonSchema } from "../../../src/eval/json-schema.js";
import { renderScenarioSchema } from "../../../scripts/scenario-schema.js";

function folderWith(files: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), "opspilot-scenarios-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  return folder;
}

describe("scenario files", () => {
  it("ships at least 40 scenarios in Chinese and English, every one valid", () => {
    const loaded = loadScenarios(DEFAULT_SCENARIOS);
    expect(loaded.length).toBeGreaterThanOrEqual(40);
    const questions = loaded.map(({ scenario }) => scenario.question);
    expect(questions.filter((question) => /\p{Script=Han}/u.test(question)).length).toBeGreaterThanOrEqual(15);
    expect(questions.filter((question) => !/\p{Script=Han}/u.test(question)).length).toBeGreaterThanOrEqual(15);
    const tags = new Set(loaded.flatMap(({ scenario }) => scenario.tags));
    for (const tag of [
      "seed",
      "dependent",
      "parallel",
      "params",
      "approve",
      "edit",
      "reject",
      "unknown",
      "failure",
      "ambiguous",
      "no-tools",
      "injection",
      "cannot-answer",
    ])
      expect(tags).toContain(tag);
  });

  it("reads YAML and JSON, one scenario or a list, and fills the defaults", () => {
    const folder = folderWith({
      "a.yaml": "id: one\nquestion: hi\n",
      "b.json": JSON.stringify({ scenarios: [{ id: "two", question: "你好", role: "admin" }] }),
      "notes.txt": "ignored",
    });
    const loaded = loadScenarios(folder);
    expect(loaded.map(({ scenario }) => [scenario.id, scenario.role])).toEqual([
      ["one", "operator"],
      ["two", "admin"],
    ]);
    expect(loaded[0]!.scenario.expect.steps).toEqual({ max: 8, min: 0 });
    expect(loaded[0]!.scenario.expect.stopReason).toBe("final_answer");
  });

  it("names the file, the scenario and the field of a bad value", () => {
    expect(() =>
      parseScenarios(
        "- id: ok\n  question: hi\n- id: bad\n  question: hi\n  expect: { steps: { max: 0 } }\n",
        "x.yaml",
      ),
    ).toThrow('x.yaml: scenario "bad": expect.steps.max: Too small: expected number to be >0');
    expect(() =>
      parseScenarios("id: p\nquestion: hi\npauses: [{ type: confirm_risky, action: edit }]\n", "p.yaml"),
    ).toThrow('p.yaml: scenario "p": pauses[0].args: edit needs args');
    expect(() => parseScenarios("- question: hi\n- question: ho\n  colour: red\n", "y.yaml")).toThrow(
      "y.yaml: scenario #1: id: Invalid input: expected string, received undefined",
    );
    expect(() =>
      parseScenarios("id: r\nquestion: hi\nexpect: { fabrication: { forbid: ['(unclosed'] } }\n", "r.yaml"),
    ).toThrow('r.yaml: scenario "r": expect.fabrication.forbid[0]: is not a valid regular expression');
    expect(() => parseScenarios("id: q\nquestion: hi\nexpect: { tool: [] }\n", "q.yaml")).toThrow(
      'q.yaml: scenario "q": expect: Unrecognized key: "tool"',
    );
  });

  it("names the file of text that does not parse, a duplicate id and a path that does not exist", () => {
    expect(() => parseScenarios("{ not json", "broken.json")).toThrow(/^broken\.json: not valid JSON: /);
    expect(() => parseScenarios("id: [unclosed", "broken.yaml")).toThrow(/^broken\.yaml: not valid YAML: /);
    const folder = folderWith({ "a.yaml": "id: same\nquestion: a\n", "b.yaml": "id: same\nquestion: b\n" });
    expect(() => loadScenarios(folder)).toThrow(
      `${join(folder, "b.yaml")}: scenario "same": id: already used in ${join(folder, "a.yaml")}`,
    );
    expect(() => loadScenarios(join(folder, "missing"))).toThrow(`${join(folder, "missing")}: no such file or folder`);
    expect(() => loadScenarios(folderWith({ "readme.md": "#" }))).toThrow(
      /no scenario files \(\.yaml, \.yml or \.json\) found/,
    );
  });
});

describe("the scenario JSON Schema", () => {
  it("is up to date with the zod schema (npx tsx scripts/scenario-schema.ts rewrites it)", async () => {
    expect(readFileSync(SCENARIO_SCHEMA_FILE, "utf8")).toBe(await renderScenarioSchema());
    const schema = scenarioJsonSchema() as { definitions: { scenario: { required: string[] } } };
    expect(schema.definitions.scenario.required).toEqual(["id", "question"]);
  });
});
