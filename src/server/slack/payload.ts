import { z } from "zod";
import { formatZodIssues } from "../../contracts/formats/zod-issues.js";
import {
  decodeButtonValue,
  SLACK_APPROVE_ACTION,
  SLACK_REJECT_ACTION,
  type SlackButtonValue,
} from "../../service/slack/buttons.js";
import { isAllowedResponseUrl } from "../../service/slack/outcome.js";
import { RequestError } from "../http-errors.js";

/** The part of an interaction payload every type shares: its type. */
const InteractionEnvelopeSchema = z.looseObject({ type: z.string() });

/** One element a person used in a `block_actions` payload (a button: `action_id`, `value`, `action_ts`). */
const BlockActionSchema = z.looseObject({
  type: z.string(),
  action_id: z.string(),
  value: z.string().optional(),
  action_ts: z.string().optional(),
});

/** What opspilot reads of Slack's `block_actions` payload; the rest (message, container, team) is left as sent. */
export const BlockActionsPayloadSchema = z.looseObject({
  type: z.literal("block_actions"),
  user: z.looseObject({ id: z.string().min(1) }),
  actions: z.array(BlockActionSchema).min(1),
  response_url: z.string().min(1),
  trigger_id: z.string().optional(),
  container: z.looseObject({ type: z.string() }).optional(),
});

/** What a verified interaction request asks for. */
export type SlackInteraction =
  /** Another interaction type, or clicks on none of opspilot's answer buttons (the page link): acknowledged only. */
  | { kind: "ignored"; type: string }
  | {
      kind: "answers";
      slackUserId: string;
      responseUrl: string;
      /** The Approve and Reject clicks, in order. */
      answers: SlackButtonValue[];
    };

/** A verified request whose body cannot be read: 400 `invalid_payload`. */
const invalid = (message: string) => new RequestError(400, "invalid_payload", message);

/**
 * Reads an interaction request's body: `application/x-www-form-urlencoded` with one `payload`
 * field holding JSON. A `block_actions` payload yields its Approve and Reject clicks; each button's
 * `value` must be an opspilot answer whose action matches the button, and `response_url` must be
 * under one of `responseUrlPrefixes`, since replies are posted to it. Refusals are 400s.
 */
export function readSlackInteraction(raw: Uint8Array, responseUrlPrefixes: readonly string[]): SlackInteraction {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch {
    throw invalid("The request body is not valid UTF-8.");
  }
  const fields = new URLSearchParams(text);
  const payloads = fields.getAll("payload");
  if (payloads.length !== 1) throw invalid("The form body must carry exactly one payload field.");
  let json: unknown;
  try {
    json = JSON.parse(payloads[0]!);
  } catch {
    throw invalid("The payload field is not valid JSON.");
  }
  const envelope = InteractionEnvelopeSchema.safeParse(json);
  if (!envelope.success) throw invalid(`payload: ${formatZodIssues(envelope.error)}`);
  if (envelope.data.type !== "block_actions") return { kind: "ignored", type: envelope.data.type };
  const parsed = BlockActionsPayloadSchema.safeParse(json);
  if (!parsed.success) throw invalid(`payload: ${formatZodIssues(parsed.error)}`);
  const payload = parsed.data;
  const answers: SlackButtonValue[] = [];
  for (const action of payload.actions) {
    const expected =
      action.action_id === SLACK_APPROVE_ACTION ? "approve" : action.action_id === SLACK_REJECT_ACTION ? "reject" : "";
    if (!expected) continue;
    const decoded = decodeButtonValue(action.value ?? "");
    if (!decoded.ok) throw invalid(`${action.action_id}: ${decoded.message}.`);
    if (decoded.value.a !== expected)
      throw invalid(`${action.action_id}: the button value answers "${decoded.value.a}".`);
    answers.push(decoded.value);
  }
  if (answers.length === 0) return { kind: "ignored", type: payload.type };
  if (!isAllowedResponseUrl(payload.response_url, responseUrlPrefixes))
    throw invalid(`response_url must be a Slack response URL (${responseUrlPrefixes.join(" or ")}...).`);
  return { kind: "answers", slackUserId: payload.user.id, responseUrl: payload.response_url, answers };
}
