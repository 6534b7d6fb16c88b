import { z } from "zod";
import type { RunnableConfig } from "@langchain/core/runnables";
import { authenticatedUser } from "./auth-user.js";
import { InvalidRunOptionsError } from "../contracts/errors.js";
import { formatZodIssues } from "../contracts/formats/zod-issues.js";

/** Cap on an observation's text when a run's options are not at hand. */
export const DEFAULT_OBSERVATION_MAX_CHARS = 4_000;

/** Limits and options of one run, read from `config.configurable`; every field has a default. */
export const RunOptionsSchema = z.object({
  userId: z.string().min(1).default("local").describe("User on whose behalf the run acts"),
  role: z
    .string()
    .min(1)
    .default("operator")
    .describe("Role that decides which tools may run: viewer, operator or admin"),
  maxSteps: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(8)
    .describe("Model turns with tool calls before the run stops with max_steps"),
  maxWallTimeMs: z
    .number()
    .int()
    .min(100)
    .default(120_000)
    .describe("Active wall time of a run (pauses excluded) before it stops with timeout"),
  maxToolFailsInRow: z
    .number()
    .int()
    .min(1)
    .default(3)
    .describe(
      "Consecutive steps in which every call failed (rejections, cancels and skips aside) before too_many_fails",
    ),
  maxApprovalPauses: z
    .number()
    .int()
    .min(1)
    .max(50)
    .default(3)
    .describe("Approval pauses one run may ask for; proposing another high-risk action then stops with loop_detected"),
  identicalCallLimit: z
    .number()
    .int()
    .min(2)
    .default(3)
    .describe("Times the same calls may be proposed in a row before loop_detected"),
  tokenBudget: z.number().int().min(1).default(200_000).describe("Tokens a run may spend before budget_exhausted"),
  costBudgetUsd: z
    .number()
    .min(0)
    .optional()
    .describe("Dollars a run may spend before budget_exhausted (needs prices)"),
  inputPricePerMillion: z.number().min(0).default(0).describe("USD per million input tokens, for the cost budget"),
  outputPricePerMillion: z.number().min(0).default(0).describe("USD per million output tokens, for the cost budget"),
  profile: z
    .string()
    .min(1)
    .optional()
    .describe("A named profile of the config file (e.g. quick, investigate, change); the limits set here win over it"),
  stepTools: z
    .array(z.string())
    .optional()
    .describe("Serial step mode: step n exposes only stepTools[n-1] (the last entry repeats); other tools are skipped"),
  writesPerStep: z
    .number()
    .int()
    .min(1)
    .max(20)
    .default(1)
    .describe(
      "Writes one step may run; a further write in the same step is skipped, so the model sees each write's result first",
    ),
  observationMaxChars: z
    .number()
    .int()
    .min(200)
    .default(DEFAULT_OBSERVATION_MAX_CHARS)
    .describe("Cap on the text of one observation"),
});

/** Limits and options of one run. */
export type RunOptions = z.infer<typeof RunOptionsSchema>;
/** Options as a caller may pass them (all optional). */
export type RunOptionsInput = z.input<typeof RunOptionsSchema>;

const optionKeys = Object.keys(RunOptionsSchema.shape) as Array<keyof RunOptions>;

/**
 * Reads and validates the run options of an invocation: `config.context` (LangGraph's
 * runtime context, what Studio's form sends) over `config.configurable`; other keys are ignored.
 * The user and role of a caller the LangGraph server authenticated win over both.
 */
export function readRunOptions(config: (RunnableConfig & { context?: unknown }) | undefined): RunOptions {
  // The stages of one step share their task's config.
  const read = config ? optionsByConfig.get(config) : undefined;
  if (read) return read;
  const options = parseRunOptions(config);
  if (config) optionsByConfig.set(config, options);
  return options;
}

const optionsByConfig = new WeakMap<object, RunOptions>();

function parseRunOptions(config: (RunnableConfig & { context?: unknown }) | undefined): RunOptions {
  const configurable = {
    ...(config?.configurable ?? {}),
    ...((config?.context ?? {}) as Record<string, unknown>),
  } as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const key of optionKeys) if (configurable[key] !== undefined) picked[key] = configurable[key];
  // On a LangGraph server with auth, the caller it authenticated is the run's user, whatever the context claims.
  const caller = authenticatedUser(config?.configurable);
  if (caller) Object.assign(picked, { userId: caller.id, role: caller.role });
  // Every node reads the options; parsing the same few values once per run is enough.
  const key = JSON.stringify(picked);
  let options = parsedOptions.get(key);
  if (!options) {
    const parsed = RunOptionsSchema.safeParse(picked);
    if (!parsed.success) throw new InvalidRunOptionsError(formatZodIssues(parsed.error));
    options = Object.freeze(parsed.data);
    if (parsedOptions.size >= PARSED_OPTIONS_KEPT) parsedOptions.clear();
    parsedOptions.set(key, options);
  }
  return options;
}

const PARSED_OPTIONS_KEPT = 256;
const parsedOptions = new Map<string, RunOptions>();

/**
 * LangGraph's recursion limit for a run with these options: one step is at most three
 * supersteps (call_model with its guard and validation, review_calls, execute_tools), plus a
 * deferred review per step and finish_run; the margin kept from when a step took five keeps
 * the guard's `max_steps` well ahead of it.
 */
export function recursionLimitFor(options: Pick<RunOptions, "maxSteps">): number {
  return (options.maxSteps + 2) * 6 + 10;
}
