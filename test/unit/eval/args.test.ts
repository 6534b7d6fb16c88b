import { describe, expect, it } from "vitest";
import { parseEvalArgs } from "../../../src/eval/args.js";

describe("npm run eval's flags", () => {
  it("reads every flag and defaults the rest", () => {
    expect(parseEvalArgs([])).toEqual({
      model: undefined,
      scenarios: "eval/scenarios",
      out: undefined,
      repeat: 1,
      concurrency: 4,
      compare: undefined,
      minScore: undefined,
      config: undefined,
      help: false,
    });
    expect(
      parseEvalArgs([
        "--model",
        "openai:gpt-4o-mini",
        "--scenarios",
        "mine.yaml",
        "--out",
        "out",
        "--repeat",
        "3",
        "--concurrency",
        "2",
        "--compare",
        "old/report.json",
        "--min-score",
        "0.85",
        "--config",
        "c.json",
      ]),
    ).toEqual({
      model: "openai:gpt-4o-mini",
      scenarios: "mine.yaml",
      out: "out",
      repeat: 3,
      concurrency: 2,
      compare: "old/report.json",
      minScore: 0.85,
      config: "c.json",
      help: false,
    });
  });

  it("refuses bad flags with a line naming the flag", () => {
    expect(() => parseEvalArgs(["--repeat", "0"])).toThrow("--repeat 0: must be a whole number from 1 to 100");
    expect(() => parseEvalArgs(["--concurrency", "two"])).toThrow(
      "--concurrency two: must be a whole number from 1 to 64",
    );
    expect(() => parseEvalArgs(["--min-score", "1.5"])).toThrow("--min-score 1.5: must be a number from 0 to 1");
    expect(() => parseEvalArgs(["--model", ""])).toThrow("--model: must not be empty");
    expect(() => parseEvalArgs(["--modle", "demo"])).toThrow(/Unknown option '--modle'.*\(see --help\)/);
    expect(() => parseEvalArgs(["demo"])).toThrow(/Unexpected argument 'demo'/);
  });
});
