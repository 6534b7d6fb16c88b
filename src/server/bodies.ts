import type { Context } from "hono";
import { z } from "zod";
import { RequestError } from "./http-errors.js";
import { formatZodIssues } from "../contracts/formats/zod-issues.js";
import { ResumeValueSchema, type ResumeValue } from "../contracts/pause/pause.js";
import { HitlResponseSchema, isHitlShaped, type HitlResponse } from "../contracts/pause/hitl.js";
import { MAX_MESSAGE_CHARS, RunLimitsRequestSchema, type RunLimitsRequest } from "../contracts/limits.js";
import { assertMessageFits } from "../contracts/errors.js";
import { MultitaskStrategySchema, type MultitaskStrategy } from "../service/runtime/multitask-strategy.js";

/** Largest request body the API reads, in bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Body of `POST /api/threads/:threadId/runs`. */
const RunBodySchema = z
  .object({
    message: z
      .string()
      .trim()
      .min(1, "message must not be empty")
      .describe(`The user's message, at most ${MAX_MESSAGE_CHARS} characters`),
    options: RunLimitsRequestSchema.optional().describe(
      "This run's limits: a profile and/or limits, each at most the server's ceiling",
    ),
    multitaskStrategy: MultitaskStrategySchema.optional(),
  })
  .strict();

const NOT_A_SEQ = { error: "must be a sequence number (an integer of 0 or more)" };

/** Query of `GET /api/threads/:threadId/events`. */
const EventsQuerySchema = z.object({
  after: z.coerce
    .number(NOT_A_SEQ)
    .int(NOT_A_SEQ)
    .min(0, NOT_A_SEQ)
    .default(0)
    .describe("Sequence number after which events are returned"),
});

/** Reads the request body as JSON; a body that is not JSON is a 400 `invalid_json`. */
async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RequestError(400, "invalid_json", "The request body is not valid JSON.");
  }
}

/**
 * Reads and validates a run body; refusals are 400 `invalid_request`. A message over the
 * limit is refused in the words the runtime and the CLI use (`MessageTooLongError`).
 */
export async function readRunBody(
  c: Context,
): Promise<{ message: string; options?: RunLimitsRequest; multitaskStrategy?: MultitaskStrategy }> {
  const parsed = RunBodySchema.safeParse(await readJson(c));
  if (!parsed.success) throw new RequestError(400, "invalid_request", formatZodIssues(parsed.error));
  assertMessageFits(parsed.data.message);
  return parsed.data;
}

/**
 * Reads and validates a resume value, in opspilot's shape or LangChain's `HITLResponse`
 * (decisions with `type`, mapped onto the waiting calls when applied); a malformed one is 400
 * `resume_rejected`, described in the shape it was meant in.
 */
export async function readResumeBody(c: Context): Promise<ResumeValue | HitlResponse> {
  const body = await readJson(c);
  const parsed = (isHitlShaped(body) ? HitlResponseSchema : ResumeValueSchema).safeParse(body);
  if (!parsed.success) throw new RequestError(400, "resume_rejected", formatZodIssues(parsed.error));
  return parsed.data;
}

/** Reads the `after` query of the events route. */
export function readEventsQuery(c: Context): number {
  const parsed = EventsQuerySchema.safeParse({ after: c.req.query("after") });
  if (!parsed.success) throw new RequestError(400, "invalid_request", formatZodIssues(parsed.error));
  return parsed.data.after;
}
