import { z } from "zod";
import { defineTool, type ToolContext, type ToolDefinition } from "../types.js";
import type { ToolsetClient } from "./http-client.js";
import {
  alertmanagerBody,
  getSilence,
  listSilences,
  matchersText,
  silenceView,
  type SilenceView,
} from "./alertmanager-api.js";

/** Longest silence the tool creates: a week. */
export const MAX_SILENCE_MINUTES = 7 * 24 * 60;

const createSchema = z.object({
  matchers: z
    .array(
      z
        .object({
          name: z
            .string()
            .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "must be a label name" })
            .describe('Label name, e.g. "alertname", "service", "severity".'),
          value: z.string().min(1).max(1_000).describe("The label's value (a regular expression when isRegex)."),
          isRegex: z.boolean().default(false).describe("true to match value as a regular expression (default false)."),
        })
        .strict(),
    )
    .min(1)
    .max(20)
    .describe(
      'Which alerts to silence; all must match. Name the alert: [{ "name": "alertname", "value": "HighErrorRate" }, ...].',
    ),
  durationMinutes: z
    .number()
    .int()
    .min(1)
    .max(MAX_SILENCE_MINUTES)
    .describe(
      `How long the silence lasts from now, in minutes (e.g. 120 for 2 hours; at most ${MAX_SILENCE_MINUTES}).`,
    ),
  comment: z.string().min(3).max(500).describe("Why the alert is silenced, in one sentence; shown in Alertmanager."),
});

/** The mark a silence's comment carries, so a retry of the same call finds the silence it created. */
export function callMark(idempotencyKey: string): string {
  return `[opspilot ${idempotencyKey}]`;
}

/** Who the silence names as its author: the person who approved the call, else who asked. */
function authorOf(ctx: ToolContext): string {
  return ctx.approvedBy ?? ctx.user.id;
}

/** `alertmanager_create_silence`: a high-risk write that silences the matching alerts for a while, once per call. */
export function createAlertmanagerCreateSilenceTool(client: ToolsetClient): ToolDefinition {
  return defineTool({
    name: "alertmanager_create_silence",
    description:
      "Silence the alerts that match ALL the given matchers in Alertmanager for durationMinutes from now, so nobody is " +
      "paged for them. High risk: the user must approve it; the silence records the approving user as createdBy. Use it " +
      "only when the user asks to silence or mute an alert. Name the alert by its alertname plus the labels that " +
      "identify it (service, instance); never silence by severity alone. Check alertmanager_silences first: a matching " +
      "silence may exist. Returns the silenceId (for alertmanager_expire_silence) and when it ends.",
    schema: createSchema,
    readOnly: false,
    risk: "high",
    idempotent: true,
    timeoutMs: client.timeoutMs * 2 + 1_000,
    summarize(result) {
      const done = result as SilenceView & { created: boolean };
      return [`silence ${done.silenceId} (${done.matchers}) until ${done.endsAt} by ${done.createdBy}`];
    },
    async run(args, ctx) {
      const mark = callMark(ctx.idempotencyKey);
      // Alertmanager has no idempotency key: a retry of this call finds the silence its first attempt made.
      const earlier = (await listSilences(client, ctx.signal)).find((silence) => silence.comment.endsWith(mark));
      if (earlier) return { ...silenceView(earlier), created: false };
      const now = Date.now();
      const silence = {
        matchers: args.matchers.map((matcher) => ({ ...matcher, isEqual: true })),
        startsAt: new Date(now).toISOString(),
        endsAt: new Date(now + args.durationMinutes * 60_000).toISOString(),
        createdBy: authorOf(ctx),
        comment: `${args.comment} ${mark}`,
      };
      const answer = (await alertmanagerBody(client, {
        method: "POST",
        path: "/api/v2/silences",
        body: silence,
        signal: ctx.signal,
      })) as { silenceID: string };
      return {
        silenceId: answer.silenceID,
        state: "active",
        matchers: matchersText(silence.matchers),
        startsAt: silence.startsAt,
        endsAt: silence.endsAt,
        createdBy: silence.createdBy,
        comment: silence.comment,
        created: true,
      };
    },
  });
}

/** `alertmanager_expire_silence`: a high-risk write that ends one silence now. */
export function createAlertmanagerExpireSilenceTool(client: ToolsetClient): ToolDefinition {
  return defineTool({
    name: "alertmanager_expire_silence",
    description:
      "End ONE Alertmanager silence now, so its alerts notify again. High risk: the user must approve it. Use it when " +
      "the user asks to unsilence or unmute an alert or the silence is no longer wanted; find the id with " +
      "alertmanager_silences. An already expired silence is reported as such, not as an error.",
    schema: z.object({
      silenceId: z
        .uuid({ error: "must be a silence id (a UUID from alertmanager_silences)" })
        .describe("The silence's id."),
    }),
    readOnly: false,
    risk: "high",
    idempotent: true,
    timeoutMs: client.timeoutMs * 3 + 1_000,
    summarize(result) {
      const done = result as SilenceView & { alreadyExpired: boolean };
      return [
        `silence ${done.silenceId} (${done.matchers}) ${done.alreadyExpired ? "was already expired" : "expired"}`,
      ];
    },
    async run(args, ctx) {
      const silence = await getSilence(client, args.silenceId, ctx.signal);
      if (silence.status.state === "expired") return { ...silenceView(silence), alreadyExpired: true };
      await alertmanagerBody(client, {
        method: "DELETE",
        path: `/api/v2/silence/${args.silenceId}`,
        signal: ctx.signal,
      });
      return { ...silenceView(await getSilence(client, args.silenceId, ctx.signal)), alreadyExpired: false };
    },
  });
}
