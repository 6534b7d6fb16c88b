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

/** Stop reasons decided by the guard or the executor, which end in `finish_run`. */
export type LimitStopReason = Extract<
  StopReason,
  "max_steps" | "timeout" | "loop_detected" | "too_many_fails" | "budget_exhausted" | "cancelled"
>;
