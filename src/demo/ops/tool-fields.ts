import { z } from "zod";
import { ENVIRONMENT_IDS } from "./data/index.js";
import type { AskField } from "../../tools/types.js";

export { throwIfCancelled } from "../../tools/cancelled.js";

/** Per-attempt time limit of the demo read tools. */
export const READ_TIMEOUT_MS = 5_000;
/** Per-attempt time limit of the demo write tools. */
export const WRITE_TIMEOUT_MS = 10_000;

/** A service named by id or by its English or Chinese name. */
export const serviceField = z
  .string()
  .min(1)
  .describe('Service id or name, English or Chinese, e.g. "payment-service", "Payment Service" or "支付服务".');

/** The environment to act on; never guessed, so it is asked from the user when missing. */
export const environmentField = z
  .enum(ENVIRONMENT_IDS)
  .describe(
    'Environment: "prod" (production, 生产环境) or "staging" (预发环境). Leave it out if the user did not say; the user will be asked.',
  );

/** The ask-the-user entry for `environment`. */
export const ASK_ENVIRONMENT: AskField = {
  description: "Which environment? prod (production / 生产环境) or staging (预发环境)",
  enum: ENVIRONMENT_IDS,
};
