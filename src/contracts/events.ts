import { z } from "zod";
import { ErrorCodeSchema } from "./observation.js";
import { PauseValueSchema } from "./pause/pause.js";
import { StopReasonSchema } from "./stop-reasons.js";

const base = { threadId: z.string(), runId: z.string(), seq: z.number().int().positive() };

/** The model turn that produced a message: carried by the first event of each assistant message. */
export const ModelStepSchema = z.object({
  step: z.number().int().describe("The turn's number within the run, counted across pauses"),
  latencyMs: z.number().describe("How long the model call took"),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  costUsd: z.number().describe("The turn's cost at the configured prices (0 without prices)"),
  retries: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Requests the model call sent again after a rate limit, a server error or a timeout; absent when none"),
});

/** One model turn's figures. */
export type ModelStep = z.infer<typeof ModelStepSchema>;

/** One arg a person's answer changed: absent `before` means it was filled in, absent `after` that it was dropped. */
export const ArgChangeSchema = z.object({
  field: z.string(),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
});

/** How a person answered the pause a call waited in, as a `tool_result` and the thread view show it (masked). */
export const CallDecisionViewSchema = z.object({
  action: z
    .enum(["approve", "edit", "reject", "expire"])
    .describe("expire: no one answered in time, and opspilot itself closed the pause"),
  by: z.string().describe("Id of the user who answered (opspilot's own id for an expiry)"),
  message: z.string().optional().describe("The note given with the answer (a rejection's reason)"),
  approvers: z
    .array(z.string())
    .optional()
    .describe("Everyone whose approval of the args counted, in order, when the tool wanted more than one (four eyes)"),
  kind: z
    .enum(["params", "approval"])
    .optional()
    .describe("params: the pause only asked for missing fields (filled by), approval: it asked for an approval"),
  changes: z
    .array(ArgChangeSchema)
    .optional()
    .describe("The args the answer filled or changed, from what the pause showed to what ran"),
});

/** A person's answer to a call's pause, as clients see it. */
export type CallDecisionView = z.infer<typeof CallDecisionViewSchema>;

/** Every event a run streams (design §6), discriminated by `type`. */
export const RunEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("run_started"),
    ...base,
    // Optional so events stored before it existed stay valid.
    resumed: z
      .boolean()
      .optional()
      .describe("True when this continues a paused run (a resume or a cancel of the pause)"),
  }),
  z.object({
    type: z.literal("tool_call"),
    ...base,
    callId: z.string(),
    tool: z.string(),
    args: z.unknown(),
    model: ModelStepSchema.optional().describe("On the first event of each model turn"),
  }),
  z.object({
    type: z.literal("tool_result"),
    ...base,
    callId: z.string(),
    tool: z.string(),
    ok: z.boolean(),
    errorCode: ErrorCodeSchema.optional(),
    summary: z.string(),
    durationMs: z.number(),
    // Optional so events stored before they existed stay valid.
    args: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("The args the call ran with (masked), when a person's answer to a pause approved or edited them"),
    decision: CallDecisionViewSchema.optional().describe("Who answered the call's pause, how, and what changed"),
    untrusted: z
      .literal(true)
      .optional()
      .describe(
        "The result holds content from a tool that is not trusted: from now on the thread's egress calls wait for a person",
      ),
  }),
  z.object({
    type: z.literal("assistant_message"),
    ...base,
    messageId: z.string(),
    content: z.string(),
    model: ModelStepSchema.optional().describe("On the first event of each model turn"),
  }),
  z.object({ type: z.literal("loop_interrupt"), ...base, ...PauseValueSchema.shape }),
  z.object({
    type: z.literal("run_finished"),
    ...base,
    stopReason: StopReasonSchema,
    steps: z.number().int(),
    durationMs: z.number(),
    paused: z.boolean().optional().describe("True when the run had paused for a person before this end"),
    // Absent in events stored before they existed, and when a run failed before its state could be read.
    tokens: z.number().int().optional().describe("Tokens the run spent so far, across its pauses"),
    costUsd: z.number().optional().describe("Dollars the run spent so far at the configured prices (0 without prices)"),
    modelError: z
      .string()
      .optional()
      .describe("Why the model call that ended the run failed (`unreachable`, `timeout`, `auth`, `rate_limited`, …)"),
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

/** The body of one kind of event. */
export type EventBodyOf<Type extends RunEventBody["type"]> = Extract<RunEventBody, { type: Type }>;

/**
 * A fragment of the answer the model is writing, sent live while the model streams.
 * Deltas are not recorded and carry no `seq`: `GET /events?after=` never replays them,
 * and the complete `assistant_message` (recorded, with its `seq`) supersedes them.
 */
export const AssistantDeltaSchema = z.object({
  type: z.literal("assistant_delta"),
  threadId: z.string(),
  runId: z.string(),
  step: z.number().int().positive().describe("The model turn the text belongs to (same count as `model.step`)"),
  text: z.string().describe("The next fragment of the turn's text; append it to the previous ones"),
});

/** One live answer fragment. */
export type AssistantDelta = z.infer<typeof AssistantDeltaSchema>;

/** What a run's live stream yields: the recorded events and, between them, answer fragments. */
export type StreamEvent = RunEvent | AssistantDelta;
