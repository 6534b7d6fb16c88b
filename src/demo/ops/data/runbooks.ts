import { COMMERCE_RUNBOOKS } from "./runbooks-commerce.js";
import { PLATFORM_RUNBOOKS } from "./runbooks-platform.js";
import { PROCEDURE_RUNBOOKS } from "./runbooks-procedures.js";
import type { RunbookRecord } from "./types.js";

/** The runbook library (18 documents) in id order. RB-003 covers the payment-service errors. */
export const RUNBOOKS: readonly RunbookRecord[] = [
  ...PROCEDURE_RUNBOOKS,
  ...COMMERCE_RUNBOOKS,
  ...PLATFORM_RUNBOOKS,
].sort((a, b) => (a.id < b.id ? -1 : 1));
