import { OpsPilotError } from "../../contracts/errors.js";
import type { StreamEvent } from "../../contracts/events.js";
import { KNOWN_ROLES, type CurrentRoles, type Role, type RunUser } from "../../contracts/user.js";
import type { WaitingCall } from "../../contracts/pause/pause.js";
import { approvalsLine } from "../../graph/pause/approvals.js";
import type { Logger } from "../observability/logger.js";
import type { Runtime } from "../runtime/runtime.js";
import type { SlackButtonValue } from "./buttons.js";
import type { SlackReply, SlackResponder } from "./outcome.js";
import { settleWithin } from "../runtime/settle.js";
import { WEBHOOK_CLOSE_GRACE_MS } from "../notices/webhook-delivery.js";

/** One Approve or Reject click, as a verified Slack request carried it. */
export interface SlackClick {
  /** The clicking Slack user (`user.id`). */
  slackUserId: string;
  /** What the button answers. */
  answer: SlackButtonValue;
  /** Where the outcome is told (already checked to be Slack's). */
  responseUrl: string;
  /** True when Slack sent this request again (`X-Slack-Retry-Num`): the first delivery reports a refusal it caused. */
  retry: boolean;
}

/** What Slack approvals are built from. */
export interface SlackApprovalsOptions {
  /** Where pauses are read and answered. */
  runtime: Pick<Runtime, "getThread" | "resumeRun">;
  /** `chat.slack.users` of the config file: Slack user id → opspilot user id. */
  users: Readonly<Record<string, string>>;
  /** The roles each opspilot user holds in `OPSPILOT_API_TOKENS`; undefined without tokens. */
  currentRoles: CurrentRoles | undefined;
  /** Posts the outcome to Slack. */
  responder: SlackResponder;
  /** Where unexpected failures go (Slack is told only that the answer failed). */
  logger: Logger;
}

/** Answers pauses from Slack clicks in the background; `answer` returns at once and never throws. */
export interface SlackApprovals {
  /** Applies one click after Slack's request was acknowledged, and reports through `response_url`. */
  answer(click: SlackClick): void;
  /** Resolves once every click taken so far was applied and its reply delivered or given up. */
  idle(): Promise<void>;
  /** Waits up to `graceMs` for clicks under way (their runs end with the runtime), then closes the responder. */
  close(graceMs?: number): Promise<void>;
}

/** A refusal that only says a pause was answered or taken first: not repeated for Slack's retry of the same click. */
const STALE = "This pause was already answered or is no longer waiting, so nothing was done.";
const BUSY = "This pause is being answered right now, so nothing more was done.";

/** The strongest of a user's roles (an operator token beats a viewer token of the same user). */
function strongestRole(roles: readonly Role[]): Role | undefined {
  const rank = (role: Role) => (KNOWN_ROLES as readonly string[]).indexOf(role);
  return [...roles].sort((a, b) => rank(b) - rank(a))[0];
}

/** The outcome line of an approval, from the events of the run it continued. */
async function approvalOutcome(events: AsyncIterable<StreamEvent>, userId: string, answer: SlackButtonValue) {
  let tool: string | undefined;
  let ran: string | undefined;
  let stopReason: string | undefined;
  let waiting: WaitingCall | undefined;
  for await (const event of events) {
    if (event.type === "tool_result" && event.callId === answer.c) {
      tool = event.tool;
      ran = event.ok ? "ok" : (event.errorCode ?? "failed");
    }
    if (event.type === "loop_interrupt") waiting = event.calls.find((call) => call.callId === answer.c);
    if (event.type === "run_finished") stopReason = event.stopReason;
  }
  if (answer.a === "reject") return `Rejected by ${userId}`;
  if (ran !== undefined) return `Approved by ${userId} · ${tool} ran: ${ran}`;
  // Four eyes: the call waits for the next approver, in a new pause whose notice carries its own buttons.
  if (waiting?.approvals)
    return `Approved by ${userId} · ${approvalsLine(waiting.approvals)}; ${waiting.tool} waits for the next approval`;
  return `Approved by ${userId} · the call has not run (the run stopped: ${stopReason ?? "unknown"})`;
}

/**
 * Slack's Approve and Reject, judged exactly as the page's answer: the Slack user is mapped to
 * an opspilot user (`chat.slack.users`), who answers with the strongest role their API tokens
 * give them today; the runtime checks that they may see the thread and run the tool, and binds
 * the answer to the call id and `argsHash` the button carries. A click on a pause that is no
 * longer the thread's, a second click and Slack's retry find nothing waiting (the runtime
 * answers a pause once, under the thread's lease) and run nothing.
 */
export function createSlackApprovals(options: SlackApprovalsOptions): SlackApprovals {
  const inFlight = new Set<Promise<void>>();
  let closed = false;

  async function decide(click: SlackClick): Promise<SlackReply | undefined> {
    const { answer } = click;
    const userId = options.users[click.slackUserId];
    if (userId === undefined)
      return ephemeral(
        `Your Slack user ${click.slackUserId} is not linked to an opspilot user, so nothing was done; an admin links it under chat.slack.users in the config file.`,
      );
    const roles = options.currentRoles?.(userId);
    if (roles === undefined)
      return ephemeral(
        `opspilot cannot tell the role of ${userId} (answers from Slack need OPSPILOT_API_TOKENS), so nothing was done.`,
      );
    const role = strongestRole(roles);
    if (role === undefined) return ephemeral(`${userId} holds no API token any more, so nothing was done.`);
    const user: RunUser = { id: userId, role };
    const refused = (error: unknown): SlackReply | undefined => {
      if (!(error instanceof OpsPilotError)) throw error;
      switch (error.code) {
        case "not_paused":
        case "resume_rejected":
          return click.retry ? undefined : ephemeral(STALE);
        case "thread_busy":
          return click.retry ? undefined : ephemeral(BUSY);
        case "thread_not_found":
          // Another approver of a four-eyes pause loses sight of the thread once the pause is answered.
          return ephemeral(
            `${userId} may not answer this pause: the thread is not theirs, or the pause they could answer as another approver was answered. Nothing was done.`,
          );
        default:
          return ephemeral(`${userId} may not answer this pause: ${error.message} Nothing was done.`);
      }
    };
    try {
      const thread = await options.runtime.getThread(answer.t, user);
      const waiting = thread.interrupt?.calls.find((call) => call.callId === answer.c);
      const current = thread.status === "interrupted" && thread.interrupt?.interruptId === answer.i;
      if (!current || waiting?.argsHash !== answer.h) return click.retry ? undefined : ephemeral(STALE);
      const events = await options.runtime.resumeRun({
        threadId: answer.t,
        user,
        resume: { decisions: [{ callId: answer.c, action: answer.a, argsHash: answer.h }] },
      });
      return { kind: "replace", text: await approvalOutcome(events, userId, answer) };
    } catch (error) {
      return refused(error);
    }
  }

  async function apply(click: SlackClick): Promise<void> {
    const reply = await decide(click).catch((error: unknown): SlackReply => {
      options.logger.error("slack: a click could not be applied", error);
      return ephemeral("opspilot could not apply this answer (internal error); open the thread on the page.");
    });
    const about = { slackUserId: click.slackUserId, action: click.answer.a, threadId: click.answer.t };
    if (reply) options.responder.reply(click.responseUrl, reply, about);
  }

  return {
    answer(click) {
      if (closed) return;
      const running = apply(click).finally(() => inFlight.delete(running));
      inFlight.add(running);
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      await options.responder.idle();
    },
    async close(graceMs = WEBHOOK_CLOSE_GRACE_MS) {
      closed = true;
      await settleWithin([...inFlight], graceMs);
      await options.responder.close(graceMs);
    },
  };
}

function ephemeral(text: string): SlackReply {
  return { kind: "ephemeral", text };
}
