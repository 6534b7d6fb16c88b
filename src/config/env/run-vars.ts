import { ExpiresAfterSchema } from "../schema.js";
import { decimal, integer } from "./values.js";

/** A run's limits and prices, and how long an approval may wait. */
export const RUN_LIMIT_VARS = {
  OPSPILOT_MAX_STEPS: integer(1, 100)
    .optional()
    .describe("Default and ceiling of model turns with tool calls per run (unset: default 8, no ceiling)"),
  OPSPILOT_MAX_WALL_TIME_MS: integer(100, 86_400_000)
    .optional()
    .describe("Default and ceiling of a run's active wall time in ms (unset: default 120000, no ceiling)"),
  OPSPILOT_MAX_TOOL_FAILS: integer(1, 1_000)
    .optional()
    .describe("Default and ceiling of consecutive all-failed steps before too_many_fails (unset: default 3)"),
  OPSPILOT_IDENTICAL_CALL_LIMIT: integer(2, 1_000)
    .optional()
    .describe("Default and ceiling of identical proposals in a row before loop_detected (unset: default 3)"),
  OPSPILOT_TOKEN_BUDGET: integer(1, 1_000_000_000)
    .optional()
    .describe("Default and ceiling of the tokens one run may spend (unset: default 200000, no ceiling)"),
  OPSPILOT_COST_BUDGET_USD: decimal(0)
    .optional()
    .describe("Default and ceiling of the dollars one run may spend (needs prices; unset: no cost budget)"),
  OPSPILOT_PRICE_INPUT_PER_MTOK: decimal(0)
    .default(0)
    .describe("USD per million input tokens, for cost records and budgets"),
  OPSPILOT_PRICE_OUTPUT_PER_MTOK: decimal(0)
    .default(0)
    .describe("USD per million output tokens, for cost records and budgets"),
  OPSPILOT_APPROVAL_EXPIRES_AFTER: ExpiresAfterSchema.optional().describe(
    'How long an approval may wait ("5s", "30m", "2h", "1d") for every tool whose approvals.expiresAfter says nothing; then the call is answered approval_expired and the run goes on. Unset: approvals wait until answered',
  ),
};

/** Each user's daily quotas. */
export const QUOTA_VARS = {
  OPSPILOT_QUOTA_RUNS_PER_DAY: integer(1, 10_000_000)
    .optional()
    .describe("Runs each user may start per UTC day (unset: unlimited)"),
  OPSPILOT_QUOTA_TOKENS_PER_DAY: integer(1, 1_000_000_000_000)
    .optional()
    .describe("Tokens each user's runs may spend per UTC day (unset: unlimited)"),
  OPSPILOT_QUOTA_COST_USD_PER_DAY: decimal(0)
    .optional()
    .describe("Dollars each user's runs may spend per UTC day (needs prices; unset: unlimited)"),
};
