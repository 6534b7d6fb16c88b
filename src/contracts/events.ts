import { z } from "zod";
import { ErrorCodeSchema } from "./observation.js";
import { InterruptValueSchema } from "./pause.js";
import { StopReasonSchema } from "./stop-reasons.js";

const base = { threadId: z.string(), runId: z.string(), seq: z.number().int().positive() };

/** Every event a run streams (design §6), discriminated by `type`. */
export const RunEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("run_started"), ...base }),
  z.object({ type: z.literal("tool_call"), ...base, callId: z.string(), tool: z.string(), args: z.unknown() }),
  z.object({
    type: z.literal("tool_result"),
    ...base,
    callId: z.string(),
    tool: z.string(),
    ok: z.boolean(),
    errorCode: ErrorCodeSchema.optional(),
    summary: z.string(),
    durationMs: z.number(),
  }),
  z.object({ type: z.literal("assistant_message"), ...base, messageId: z.string(), content: z.string() }),
  z.object({ type: z.literal("loop_interrupt"), ...base, ...InterruptValueSchema.shape }),
  z.object({
    type: z.literal("run_finished"),
    ...base,
    stopReason: StopReasonSchema,
    steps: z.number().int(),
    durationMs: z.number(),
  }),
]);

/** One streamed event. */
export type RunEvent = z.infer<typeof RunEventSchema>;
/** An event before the stream stamps `threadId`, `runId` and `seq` on it. */
export type RunEventBody = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, "threadId" | "runId" | "seq">
    : never
  : never;
