import { z } from "zod";

/** Why a run ended (design §5). */
export const StopReasonSchema = z.enum([
  "final_answer",
  "interrupted",
  "max_steps",
  "timeout",
  "loop_detected",
  "too_many_fails",
  "budget_exhausted",
  "cancelled",
  "error",
]);

/** Why a run ended. */
export type StopReason = z.infer<typeof StopReasonSchema>;
