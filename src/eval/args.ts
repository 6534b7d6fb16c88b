import { parseArgs } from "node:util";
import { EvalUsageError } from "./eval-error.js";

/** Where the shipped scenarios live, relative to the working directory (the repository root). */
export const DEFAULT_SCENARIOS = "eval/scenarios";

/** `npm run eval`'s flags, checked. */
export interface EvalArgs {
  /** `demo`, `openai:<model>` or `anthropic:<model>`; the configured model when omitted. */
  model?: string;
  /** A scenario file or folder. */
  scenarios: string;
  /** Folder for `report.json` and `report.html`. */
  out?: string;
  /** Runs of each scenario. */
  repeat: number;
  /** Scenarios at once. */
  concurrency: number;
  /** An earlier `report.json`. */
  compare?: string;
  /** Fail (exit 1) when the score is below this. */
  minScore?: number;
  /** The config file (MCP servers, tool policies); `OPSPILOT_CONFIG` when omitted. */
  config?: string;
  /** Print the usage and exit. */
  help: boolean;
}

/** The usage text of `npm run eval`. */
export const USAGE = `Usage: npm run eval -- [flags]

Runs each scenario on a fresh thread through opspilot's runtime and scores the agent's behaviour.

  --model <name>        demo | openai:<model> | anthropic:<model> (default: OPSPILOT_MODEL, else demo)
  --scenarios <path>    a scenario file (.yaml, .yml, .json) or a folder of them (default: ${DEFAULT_SCENARIOS})
  --out <dir>           where report.json and report.html go (default: .opspilot/eval/<time>)
  --repeat <n>          runs of each scenario, for models that are not deterministic (default 1)
  --concurrency <n>     scenarios running at once (default 4)
  --compare <file>      an earlier report.json: list the scenarios that got worse or better
  --min-score <x>       exit 1 when the score (0 to 1) is below x
  --config <file>       opspilot config file (MCP servers, tool policies); default: OPSPILOT_CONFIG
  --help                this text

Exit codes: 0 done, 1 score below --min-score or the evaluation failed, 2 bad flags or scenario files.`;

/** Reads the flags; anything wrong throws `EvalUsageError` naming the flag. */
export function parseEvalArgs(argv: readonly string[]): EvalArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        model: { type: "string" },
        scenarios: { type: "string" },
        out: { type: "string" },
        repeat: { type: "string" },
        concurrency: { type: "string" },
        compare: { type: "string" },
        "min-score": { type: "string" },
        config: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new EvalUsageError(`${error instanceof Error ? error.message : String(error)} (see --help)`);
  }
  const text = (name: string) => {
    const value = values[name];
    if (typeof value === "string" && value.trim() === "") throw new EvalUsageError(`--${name}: must not be empty`);
    return typeof value === "string" ? value.trim() : undefined;
  };
  return {
    model: text("model"),
    scenarios: text("scenarios") ?? DEFAULT_SCENARIOS,
    out: text("out"),
    repeat: integer("repeat", text("repeat"), 1, 100) ?? 1,
    concurrency: integer("concurrency", text("concurrency"), 1, 64) ?? 4,
    compare: text("compare"),
    minScore: score(text("min-score")),
    config: text("config"),
    help: values.help === true,
  };
}

function integer(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max)
    throw new EvalUsageError(`--${name} ${value}: must be a whole number from ${min} to ${max}`);
  return number;
}

function score(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || number > 1)
    throw new EvalUsageError(`--min-score ${value}: must be a number from 0 to 1`);
  return number;
}
