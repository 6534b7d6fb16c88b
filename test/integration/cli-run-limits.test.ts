import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage } from "@langchain/core/messages";
import { runCliHere } from "../fixtures/cli-process.js";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { parseCliArgs } from "../../src/cli/args.js";
import { loadEnv } from "../../src/config/env.js";
import { ScriptedChatModel } from "../fixtures/scripted-model.js";
import { runCliProcess } from "../fixtures/cli-process.js";
import { testTools } from "../fixtures/test-tools.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-cli-limits-"));
let databases = 0;

/** A model that reads something new every turn, 1000 input and 200 output tokens each, `delayMs` per turn. */
function endlessReader(delayMs = 0): ScriptedChatModel {
  return new ScriptedChatModel({
    delayMs,
    script: Array.from(
      { length: 40 },
      (_, index) =>
        new AIMessage({
          content: "",
          tool_calls: [{ name: "read_a", args: { query: `q${index}` }, type: "tool_call" }],
          usage_metadata: { input_tokens: 1_000, output_tokens: 200, total_tokens: 1_200 },
        }),
    ),
  });
}

/** Runs the CLI in this process over a scripted model, with `env` as the server's settings. */
async function ask(argv: string[], env: Record<string, string> = {}, modelDelayMs = 0) {
  return runCliHere(["ask", "--no-input", ...argv], {
    createApp: () =>
      createApp({
        env: loadEnv(env),
        dbPath: join(directory, `cli-${++databases}.sqlite`),
        model: endlessReader(modelDelayMs),
        tools: () => testTools(),
        config: { mcpServers: {}, tools: {}, demo: true, profiles: { quick: { maxSteps: 1 } } },
      }),
  });
}

/** The closing line's figures: stop reason, steps, and what the run spent. */
function closing(out: string): string {
  const line = out.split("\n").find((text) => text.startsWith("■ stop:")) ?? "";
  return line.replace(/ · \d+(\.\d)? (ms|s)(?= ·|$)/, "");
}

describe("run limits from the command line", () => {
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("stops at --max-steps, --profile, --token-budget and --cost-budget, printing tokens and cost", async () => {
    const prices = { OPSPILOT_PRICE_INPUT_PER_MTOK: "2", OPSPILOT_PRICE_OUTPUT_PER_MTOK: "8" };
    const steps = await ask(["--max-steps", "2", "look"], prices);
    expect(steps.code).toBe(0);
    expect(closing(steps.out)).toBe("■ stop: max_steps · 3 steps · 3,600 tokens · $0.0108");
    expect(closing((await ask(["--profile", "quick", "look"], prices)).out)).toBe(
      "■ stop: max_steps · 2 steps · 2,400 tokens · $0.0072",
    );
    expect(closing((await ask(["--token-budget", "2000", "look"])).out)).toBe(
      "■ stop: budget_exhausted · 2 steps · 2,400 tokens",
    );
    expect(closing((await ask(["--cost-budget", "0.005", "look"], prices)).out)).toBe(
      "■ stop: budget_exhausted · 2 steps · 2,400 tokens · $0.0072",
    );
  });

  it("stops at --max-time", async () => {
    const { out } = await ask(["--max-time", "450ms", "look"], {}, 300);
    expect(closing(out)).toBe("■ stop: timeout · 2 steps · 2,400 tokens");
  });

  it("stops at the environment's OPSPILOT_MAX_STEPS", async () => {
    const { out } = await ask(["look"], { OPSPILOT_MAX_STEPS: "1" });
    expect(closing(out)).toBe("■ stop: max_steps · 2 steps · 2,400 tokens");
  });

  it("reads the limit flags, and refuses bad values with a usage line", () => {
    expect(
      parseCliArgs([
        "ask",
        "--profile",
        "quick",
        "--max-time",
        "2m",
        "--token-budget",
        "5000",
        "--cost-budget",
        "$0.25",
        "q",
      ]).limits,
    ).toEqual({ profile: "quick", maxWallTimeMs: 120_000, tokenBudget: 5_000, costBudgetUsd: 0.25 });
    expect(parseCliArgs(["ask", "--max-time", "90", "q"]).limits).toEqual({ maxWallTimeMs: 90_000 });
    expect(() => parseCliArgs(["ask", "--max-time", "soon", "q"])).toThrow(
      '--max-time must be a duration of at least 100ms, such as 90s, 2m or 1500ms (got "soon").',
    );
    expect(() => parseCliArgs(["ask", "--cost-budget=-1", "q"])).toThrow(
      '--cost-budget must be an amount of dollars of 0 or more, such as 0.25 (got "-1").',
    );
    expect(() => parseCliArgs(["ask", "--token-budget", "1.5", "q"])).toThrow(
      '--token-budget must be an integer from 1 to 1000000000 (got "1.5").',
    );
  });

  it("exits 2 with one line when a flag is above the server's ceiling, and runs nothing", async () => {
    const db = join(directory, "real-cli.sqlite");
    const result = await runCliProcess(["ask", "--max-steps", "9", "check the payment service"], {
      db,
      env: { OPSPILOT_MAX_STEPS: "3" },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "opspilot: maxSteps 9 is above the server's ceiling of 3 (OPSPILOT_MAX_STEPS); a run may only tighten it. [limit_above_ceiling]\n",
    );
    expect(result.stdout).toBe("");
  }, 60_000);
});
