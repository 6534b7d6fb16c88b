import { describe, expect, it } from "vitest";
import { NotPausedError, ThreadBusyError } from "../../../src/contracts/errors.js";
import type { RunUser } from "../../../src/contracts/user.js";
import type { Runtime, ThreadView } from "../../../src/service/runtime/runtime.js";
import { createSlackApprovals, type SlackClick } from "../../../src/service/slack/approvals.js";
import type { SlackReply } from "../../../src/service/slack/outcome.js";

const answer = { t: "thread-1", i: "int_1", c: "call_1", h: "hash-1", a: "approve" as const };
const paused: ThreadView = {
  threadId: "thread-1",
  status: "interrupted",
  messages: [],
  interrupt: {
    interruptId: "int_1",
    interruptType: "confirm_risky",
    reason: "restart_service is a high-risk action",
    calls: [{ callId: "call_1", tool: "restart_service", args: {}, argsHash: "hash-1", risk: "high" }],
  },
};

/** Approvals over a fake runtime; returns what was replied and who resumed. */
function harness(options: { roles?: Record<string, string[]>; resume?: () => Promise<never> } = {}) {
  const replies: SlackReply[] = [];
  const resumedBy: RunUser[] = [];
  const logged: string[] = [];
  const runtime: Pick<Runtime, "getThread" | "resumeRun"> = {
    getThread: () => Promise.resolve(paused),
    async resumeRun(request) {
      resumedBy.push(request.user);
      if (options.resume) return options.resume();
      return (async function* () {
        yield {
          type: "tool_result",
          threadId: "thread-1",
          runId: "r",
          seq: 9,
          callId: "call_1",
          tool: "restart_service",
          ok: false,
          errorCode: "timeout",
          summary: "",
          durationMs: 1,
        } as const;
      })();
    },
  };
  const roles = options.roles;
  const approvals = createSlackApprovals({
    runtime,
    users: { U0OLGA: "olga" },
    currentRoles: roles ? (userId) => roles[userId] ?? [] : undefined,
    responder: { reply: (_url, reply) => void replies.push(reply), idle: async () => {}, close: async () => {} },
    logger: { error: (message) => void logged.push(message) },
  });
  const click = async (overrides: Partial<SlackClick> = {}) => {
    approvals.answer({
      slackUserId: "U0OLGA",
      answer,
      responseUrl: "https://hooks.slack.com/a",
      retry: false,
      ...overrides,
    });
    await approvals.idle();
  };
  return { replies, resumedBy, logged, click };
}

describe("Slack approvals", () => {
  it("answers with the strongest role the user's tokens give and names the call's outcome", async () => {
    const { replies, resumedBy, click } = harness({ roles: { olga: ["viewer", "admin", "operator"] } });
    await click();
    expect(resumedBy).toEqual([{ id: "olga", role: "admin" }]);
    expect(replies).toEqual([{ kind: "replace", text: "Approved by olga · restart_service ran: timeout" }]);
  });

  it("refuses without a token table, or for a user whose tokens are gone, and resumes nothing", async () => {
    const open = harness();
    await open.click();
    expect(open.replies).toEqual([
      {
        kind: "ephemeral",
        text: "opspilot cannot tell the role of olga (answers from Slack need OPSPILOT_API_TOKENS), so nothing was done.",
      },
    ]);
    const gone = harness({ roles: {} });
    await gone.click();
    expect(gone.replies).toEqual([
      { kind: "ephemeral", text: "olga holds no API token any more, so nothing was done." },
    ]);
    expect([...open.resumedBy, ...gone.resumedBy]).toEqual([]);
  });

  it("refuses a click whose argsHash or pause is not the one waiting, before resuming", async () => {
    const { replies, resumedBy, click } = harness({ roles: { olga: ["operator"] } });
    await click({ answer: { ...answer, h: "other-hash" } });
    await click({ answer: { ...answer, i: "int_old" } });
    expect(resumedBy).toEqual([]);
    expect(replies.map((reply) => reply.kind)).toEqual(["ephemeral", "ephemeral"]);
  });

  it("tells a second click that lost the race, but stays silent for Slack's retry of it", async () => {
    for (const error of [new ThreadBusyError("thread-1"), new NotPausedError("thread-1")]) {
      const lost = harness({ roles: { olga: ["operator"] }, resume: () => Promise.reject(error) });
      await lost.click();
      await lost.click({ retry: true });
      expect(lost.replies).toHaveLength(1);
      expect(lost.replies[0]!.kind).toBe("ephemeral");
    }
  });

  it("logs an unexpected failure and tells the clicker only that it failed", async () => {
    const broken = harness({ roles: { olga: ["operator"] }, resume: () => Promise.reject(new Error("disk on fire")) });
    await broken.click();
    expect(broken.logged).toEqual(["slack: a click could not be applied"]);
    expect(broken.replies).toEqual([
      {
        kind: "ephemeral",
        text: "opspilot could not apply this answer (internal error); open the thread on the page.",
      },
    ]);
  });
});
