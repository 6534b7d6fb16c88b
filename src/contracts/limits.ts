import { z } from "zod";

/** The limits an operator caps and a run may tighten; for each, a higher value lets a run go further. */
export const LIMIT_NAMES = [
  "maxSteps",
  "maxWallTimeMs",
  "maxToolFailsInRow",
  "identicalCallLimit",
  "tokenBudget",
  "costBudgetUsd",
] as const;

/** One of `LIMIT_NAMES`. */
export type LimitName = (typeof LIMIT_NAMES)[number];

/** A set of limits, each optional: a profile in the config file, the server's ceilings, or what one run asks for. */
export const RunLimitsSchema = z
  .object({
    maxSteps: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe("Model turns with tool calls before the run stops with max_steps (1-100)"),
    maxWallTimeMs: z
      .number()
      .int()
      .min(100)
      .optional()
      .describe("Active wall time of a run in ms (pauses excluded) before it stops with timeout"),
    maxToolFailsInRow: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("Consecutive steps in which every call failed before too_many_fails"),
    identicalCallLimit: z
      .number()
      .int()
      .min(2)
      .optional()
      .describe("Times the same calls may be proposed in a row before loop_detected"),
    tokenBudget: z.number().int().min(1).optional().describe("Tokens a run may spend before budget_exhausted"),
    costBudgetUsd: z.number().min(0).optional().describe("Dollars a run may spend before budget_exhausted"),
  })
  .strict();

/** A set of limits. */
export type RunLimits = z.infer<typeof RunLimitsSchema>;

/** Longest message a run accepts, in characters once trimmed: the API, the runtime and the CLI refuse a longer one alike. */
export const MAX_MESSAGE_CHARS = 8_000;

/** Characters of a profile name. */
export const PROFILE_NAME = /^[A-Za-z0-9_-]{1,40}$/;

/** What a caller may ask of one run (`options` of `POST /api/threads/:id/runs`): a named profile and limits over it. */
export const RunLimitsRequestSchema = RunLimitsSchema.extend({
  profile: z
    .string()
    .regex(PROFILE_NAME, { error: "must be a profile name (letters, digits, _ and -)" })
    .optional()
    .describe("A profile of the config file (e.g. quick, investigate, change); the limits given beside it win"),
}).strict();

/** What a caller may ask of one run. */
export type RunLimitsRequest = z.infer<typeof RunLimitsRequestSchema>;
