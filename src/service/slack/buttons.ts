import { z } from "zod";
import type { WaitingCall } from "../../contracts/pause/pause.js";

/** `action_id` of the Approve button of a pause notice. */
export const SLACK_APPROVE_ACTION = "opspilot_approve";
/** `action_id` of the Reject button of a pause notice. */
export const SLACK_REJECT_ACTION = "opspilot_reject";
/** `action_id` of the link button to the page (Slack still posts its click, which is acknowledged and ignored). */
export const SLACK_OPEN_ACTION = "opspilot_open";

/** Longest `value` a Slack button takes. */
export const SLACK_BUTTON_VALUE_MAX = 2000;

/** Longest title and text of a Slack confirmation dialog. */
const CONFIRM_TITLE_MAX = 100;
const CONFIRM_TEXT_MAX = 300;

/**
 * What an Approve or Reject button answers, as its `value` carries it: the thread, the pause
 * (interrupt id), the call and the `argsHash` the notice showed, and the action. A click on a
 * pause that is no longer the thread's, or on a call already decided, runs nothing.
 */
export const SlackButtonValueSchema = z
  .object({
    t: z.string().min(1).describe("Thread id"),
    i: z.string().min(1).describe("Interrupt id of the pause the notice announced"),
    c: z.string().min(1).describe("Call id of the waiting call"),
    h: z.string().min(1).describe("argsHash of the call as the notice showed it"),
    a: z.enum(["approve", "reject"]).describe("What the button answers"),
  })
  .strict();

/** A decoded button value. */
export type SlackButtonValue = z.infer<typeof SlackButtonValueSchema>;

/** The button value as the text Slack stores and sends back. */
export function encodeButtonValue(value: SlackButtonValue): string {
  return JSON.stringify(value);
}

/** Reads a button's `value`; a refusal says what is wrong with it. */
export function decodeButtonValue(
  text: string,
): { ok: true; value: SlackButtonValue } | { ok: false; message: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, message: "the button value is not JSON" };
  }
  const value = SlackButtonValueSchema.safeParse(parsed);
  if (!value.success) return { ok: false, message: "the button value is not an opspilot pause answer" };
  return { ok: true, value: value.data };
}

/** The part of a pause notice the buttons are built from. */
export interface PauseButtonsSource {
  threadId: string;
  interruptId: string;
  /** The page open on the thread. */
  link: string;
  calls: readonly WaitingCall[];
}

/**
 * The `actions` block of a Slack pause notice. A pause of one call that waits only for a yes or
 * no gets Approve (with Slack's confirmation dialog) and Reject, plus a link to the page; a pause
 * that waits for fields, or for several calls (a resume answers them all at once), gets only the
 * link, since buttons cannot fill a form.
 */
export function pauseActionsBlock(source: PauseButtonsSource): Record<string, unknown> {
  const call = source.calls.length === 1 ? source.calls[0]! : undefined;
  const values =
    call && !call.missing?.length
      ? (["approve", "reject"] as const).map((action) =>
          encodeButtonValue({ t: source.threadId, i: source.interruptId, c: call.callId, h: call.argsHash, a: action }),
        )
      : [];
  const answerable = values.length === 2 && values.every((value) => value.length <= SLACK_BUTTON_VALUE_MAX);
  if (!call || !answerable)
    return { type: "actions", elements: [linkButton(source.link, "Fill in on the page", "primary")] };
  return {
    type: "actions",
    elements: [
      {
        type: "button",
        action_id: SLACK_APPROVE_ACTION,
        text: plain("Approve"),
        style: "primary",
        value: values[0],
        confirm: {
          title: plain(cut(`Approve ${call.tool}?`, CONFIRM_TITLE_MAX)),
          text: plain(cut(`${call.tool} will run with the arguments shown above.${changesOf(call)}`, CONFIRM_TEXT_MAX)),
          confirm: plain("Approve"),
          deny: plain("Cancel"),
        },
      },
      { type: "button", action_id: SLACK_REJECT_ACTION, text: plain("Reject"), style: "danger", value: values[1] },
      linkButton(source.link, "Open on the page"),
    ],
  };
}

/** The dry run's changes, for the confirmation dialog: " It changes spec.replicas: 3 → 5." */
function changesOf(call: WaitingCall): string {
  const changes = (call.preview?.changes ?? []).map(
    (change) => `${change.path}: ${String(change.from ?? "(none)")} → ${String(change.to ?? "(none)")}`,
  );
  return changes.length > 0 ? ` It changes ${changes.join("; ")}.` : "";
}

function linkButton(url: string, label: string, style?: "primary"): Record<string, unknown> {
  return { type: "button", action_id: SLACK_OPEN_ACTION, text: plain(label), url, ...(style ? { style } : {}) };
}

function plain(text: string) {
  return { type: "plain_text", text, emoji: true };
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
