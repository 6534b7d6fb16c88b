import type { StateSnapshot } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { durationWords, parseDuration } from "../../../src/contracts/formats/duration.js";
import { ConfigFileSchema } from "../../../src/config/schema.js";
import { loadEnv } from "../../../src/config/env.js";
import { SYSTEM_ACTOR } from "../../../src/contracts/user.js";
import { applyResume, pauseExpiry, waitingCalls } from "../../../src/graph/pause.js";
import type { Batch } from "../../../src/graph/state.js";
import { applyToolPolicy, withApprovalDefault } from "../../../src/tools/policy.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { continuingUser, expiryChoice } from "../../../src/service/approvals/expiry-plan.js";
import { createApprovalExpiry } from "../../../src/service/approvals/expiry.js";
import { NotPausedError, ThreadBusyError } from "../../../src/contracts/errors.js";
import type { PauseDeadline } from "../../../src/storage/types.js";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import { createHarness, shape } from "../../fixtures/harness.js";
import { testTools } from "../../fixtures/test-tools.js";

const HOUR = 3_600_000;
const quiet = { error: () => undefined };

describe("durations", () => {
  it("reads a whole number and one unit, and nothing else", () => {
    expect(["5s", "30m", "2h", "1d", "365d"].map(parseDuration)).toEqual([
      5_000,
      1_800_000,
      7_200_000,
      86_400_000,
      365 * 24 * HOUR,
    ]);
    for (const bad of ["0s", "1.5h", "5 s", "5", "m", "-1s", "366d", "5S", " 5s", "05s"])
      expect(parseDuration(bad), bad).toBeUndefined();
  });

  it("says a duration in the largest unit that divides it, in English and Chinese", () => {
    expect(durationWords(1_800_000, "en")).toBe("30 minutes");
    expect(durationWords(1_000, "en")).toBe("1 second");
    expect(durationWords(90_000, "en")).toBe("90 seconds");
    expect(durationWords(2 * HOUR, "zh")).toBe("2 小时");
    expect(durationWords(86_400_000, "zh")).toBe("1 天");
  });

  it("refuses a bad expiresAfter in the config file and in the environment, naming where", () => {
    const parsed = ConfigFileSchema.safeParse({ tools: { restart_service: { approvals: { expiresAfter: "soon" } } } });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain(
      'must be a whole number and a unit, s, m, h or d (e.g. \\"5s\\"',
    );
    expect(parsed.error?.issues[0]?.path).toEqual(["tools", "restart_service", "approvals", "expiresAfter"]);
    expect(() => loadEnv({ OPSPILOT_APPROVAL_EXPIRES_AFTER: "30 minutes" })).toThrow(/OPSPILOT_APPROVAL_EXPIRES_AFTER/);
    expect(loadEnv({ OPSPILOT_APPROVAL_EXPIRES_AFTER: "30m" }).OPSPILOT_APPROVAL_EXPIRES_AFTER).toBe("30m");
  });
});

describe("approvals.expiresAfter in tool policies", () => {
  const expiry = (policies: Parameters<typeof applyToolPolicy>[1]) =>
    Object.fromEntries(applyToolPolicy(testTools(), policies).map((tool) => [tool.name, tool.approvalExpiresAfterMs]));

  it("gives every tool the server default, lets a tool's own entry win, and lets never turn it off", () => {
    const policies = withApprovalDefault(
      {
        write_high: { approvals: { expiresAfter: "5s" } },
        "write_*": { risk: "high" },
        write_low: { approvals: { expiresAfter: "never" } },
      },
      "30m",
    );
    const ms = expiry(policies);
    expect(ms).toMatchObject({ write_high: 5_000, write_low: undefined, read_a: 1_800_000 });
    expect(expiry({})).toMatchObject({ write_high: undefined, read_a: undefined });
  });

  it("merges approvals key by key: a glob's expiry stays when a more specific entry sets other approval keys", () => {
    const ms = expiry({ "write_*": { approvals: { expiresAfter: "2h" } }, write_high: { approvals: {} } });
    expect(ms.write_high).toBe(2 * HOUR);
  });
});

/** A batch with one high-risk call waiting for approval, as validate_calls leaves it. */
function waitingBatch(): Batch {
  return {
    step: 1,
    calls: [
      {
        callId: "c1",
        tool: "write_high",
        args: { target: "api", environment: "prod" },
        argsHash: "h1",
        readOnly: false,
        risk: "high",
        status: "needs_approval",
      },
    ],
  };
}

describe("answering a pause whose approvals expire", () => {
  const [tool] = applyToolPolicy(testTools(), { write_high: { approvals: { expiresAfter: "30m" } } }).filter(
    (candidate) => candidate.name === "write_high",
  );
  const registry = new ToolRegistry([tool!]);
  const deadline = pauseExpiry(waitingBatch(), { registry, since: 1_000 })!;
  const context = (now: number) => ({
    registry,
    answerer: { id: "olivia", role: "operator" },
    pause: { interruptId: "int_1", deadline },
    now,
  });

  it("puts the deadline at the pause's start plus the tool's expiresAfter", () => {
    expect(deadline).toEqual({ expiresAt: 1_000 + 1_800_000, afterMs: 1_800_000 });
  });

  it("refuses opspilot's expiry before the deadline and for another pause", () => {
    const expire = { expire: { interruptId: "int_1" } };
    expect(applyResume(waitingBatch(), expire, context(deadline.expiresAt - 1))).toMatchObject({
      ok: false,
      error: "Pause int_1 has not expired; answer it with decisions.",
    });
    expect(
      applyResume(waitingBatch(), { expire: { interruptId: "int_2" } }, context(deadline.expiresAt)),
    ).toMatchObject({ ok: false, error: "Pause int_2 is not the one waiting; nothing expired." });
  });

  it("answers every waiting call approval_expired, decided by opspilot itself, once the deadline passed", () => {
    const outcome = applyResume(waitingBatch(), { expire: { interruptId: "int_1" } }, context(deadline.expiresAt));
    const message = "No one approved write_high within 30 minutes.";
    expect(outcome).toEqual({
      ok: true,
      decidedBy: SYSTEM_ACTOR,
      decisions: [{ callId: "c1", action: "expire", message }],
      batch: {
        step: 1,
        calls: [
          expect.objectContaining({
            callId: "c1",
            status: "failed",
            failure: { errorCode: "approval_expired", message },
            decision: {
              action: "expire",
              userId: "opspilot:system",
              message,
              argsBefore: waitingBatch().calls[0]!.args,
            },
          }),
        ],
      },
    });
    expect(waitingCalls(outcome.ok ? outcome.batch : null)).toEqual([]);
  });

  it("refuses a person's approval that comes after the deadline", () => {
    const approve = { decisions: [{ callId: "c1", action: "approve" }] };
    expect(applyResume(waitingBatch(), approve, context(deadline.expiresAt - 1))).toMatchObject({ ok: true });
    expect(applyResume(waitingBatch(), approve, context(deadline.expiresAt))).toMatchObject({
      ok: false,
      error: `This pause expired at ${new Date(deadline.expiresAt).toISOString()}: no answer is taken any more, and its calls are answered approval_expired.`,
    });
  });

  it("gives a pause with no high-risk call no deadline", () => {
    const fields = { ...waitingBatch(), calls: [{ ...waitingBatch().calls[0]!, risk: "low" as const }] };
    expect(pauseExpiry(fields, { registry, since: 0 })).toBeUndefined();
  });
});

describe("the sweep's choice", () => {
  const row: PauseDeadline = {
    threadId: "t1",
    interruptId: "int_1",
    expiresAt: 5_000,
    userId: "olivia",
    role: "operator",
  };
  const snapshot = (interruptId: string | undefined, expiresAt = new Date(5_000).toISOString()) =>
    ({
      values: { run: { runId: "r1", lastActiveAt: 3_000, language: "en" }, batch: waitingBatch() },
      tasks: interruptId
        ? [
            {
              name: "review_calls",
              interrupts: [
                {
                  value: {
                    interruptId,
                    interruptType: "confirm_risky",
                    reason: "",
                    calls: waitingBatch().calls,
                    expiresAt,
                  },
                },
              ],
            },
          ]
        : [],
    }) as unknown as StateSnapshot;

  it("expires only the same pause, still waiting, once its own deadline passed", () => {
    expect(expiryChoice(snapshot("int_1"), row, 5_000)).toMatchObject({
      kind: "expire",
      runId: "r1",
      messages: ["No one approved write_high within 2 seconds."],
    });
    expect(expiryChoice(snapshot("int_1"), row, 4_999)).toEqual({ kind: "not_due" });
    expect(expiryChoice(snapshot("int_2"), row, 9_000)).toEqual({ kind: "stale" });
    expect(expiryChoice(snapshot(undefined), row, 9_000)).toEqual({ kind: "stale" });
  });

  it("goes on as the user whose run paused, as a viewer once they lost that role", () => {
    expect(continuingUser(row, undefined)).toEqual({ id: "olivia", role: "operator" });
    expect(continuingUser(row, () => ["operator"])).toEqual({ id: "olivia", role: "operator" });
    expect(continuingUser(row, () => [])).toEqual({ id: "olivia", role: "viewer" });
  });

  it("keeps a busy thread's deadline, forgets a stale one, and notifies each expiry once", async () => {
    const rows = [row, { ...row, threadId: "t2" }, { ...row, threadId: "t3" }];
    const forgotten: string[] = [];
    const notices: string[] = [];
    const sweep = createApprovalExpiry({
      store: {
        trackDeadline: async () => undefined,
        dueDeadlines: async () => rows.filter((entry) => !forgotten.includes(entry.threadId)),
        forgetDeadline: async (threadId) => void forgotten.push(threadId),
      },
      logger: quiet,
      onExpired: (notice) => notices.push(notice.threadId),
      expirer: {
        async expire(deadline) {
          if (deadline.threadId === "t1") throw new ThreadBusyError("t1");
          if (deadline.threadId === "t2") throw new NotPausedError("t2");
          return {
            events: (async function* () {})(),
            notice: {
              type: "approval_expired",
              threadId: "t3",
              runId: "r",
              interruptId: "i",
              expiresAt: "",
              tools: [],
              messages: [],
            },
          };
        },
      },
    });
    expect(await sweep.sweep()).toEqual(["busy", "stale", "expired"]);
    expect(await sweep.sweep()).toEqual(["busy"]);
    expect({ forgotten, notices }).toEqual({ forgotten: ["t2", "t3"], notices: ["t3"] });
    await sweep.close();
  });
});

describe("an expired approval in the loop", () => {
  it("answers the call approval_expired without running it, records opspilot's decision, lets the model answer, and refuses a late answer", async () => {
    const writes: string[] = [];
    const [writeHigh] = testTools({ writes }).filter((tool) => tool.name === "write_high");
    const harness = createHarness({
      tools: [{ ...writeHigh!, approvalExpiresAfterMs: 50 }],
      script: [
        callsMessage([{ name: "write_high", args: { target: "api", environment: "prod" }, id: "w1" }]),
        answerMessage("No one approved the change in time, so nothing was changed."),
      ],
    });
    const paused = await harness.ask("change api in prod");
    const pause = paused.events.find((event) => event.type === "loop_interrupt");
    expect(pause).toMatchObject({ expiresAt: expect.any(String) });
    const expiresAt = Date.parse((pause as { expiresAt: string }).expiresAt);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 5)));

    const approve = { decisions: [{ callId: "w1", action: "approve" }] };
    await expect(
      harness.runtime.resumeRun({ threadId: paused.threadId, user: harness.user, resume: approve }),
    ).rejects.toMatchObject({ code: "not_paused", status: 409, name: "PauseExpiredError" });
    await expect(
      harness.runtime.resumeRun({
        threadId: paused.threadId,
        user: harness.user,
        resume: { expire: { interruptId: "x" } },
      }),
    ).rejects.toMatchObject({ code: "not_paused" });

    const due = await harness.storage.pauseDeadlines.dueDeadlines(Date.now(), 10);
    expect(due).toEqual([
      {
        threadId: paused.threadId,
        interruptId: (pause as { interruptId: string }).interruptId,
        expiresAt,
        userId: "tester",
        role: "operator",
      },
    ]);
    const jobs = harness.serveApprovalExpiry(10);
    while ((await harness.runtime.getThread(paused.threadId, harness.user)).status !== "idle")
      await new Promise((resolve) => setTimeout(resolve, 10));
    await jobs.stop();

    const state = await harness.state(paused.threadId);
    expect(shape(state.messages)).toEqual(["human", "ai:write_high", "tool:write_high:approval_expired", "ai"]);
    expect(writes).toEqual([]);
    const records = await harness.storage.threadRecords(paused.threadId);
    expect(records.decisions).toMatchObject([
      {
        call_id: "w1",
        action: "expire",
        user_id: "opspilot:system",
        role: "system",
        message: "No one approved write_high within 1 second.",
      },
    ]);
    expect(records.toolCalls).toMatchObject([{ call_id: "w1", outcome: "rejected", error_code: "approval_expired" }]);
    expect(await harness.storage.pauseDeadlines.dueDeadlines(Date.now(), 10)).toEqual([]);
    const events = await harness.storage.eventsAfter(paused.threadId, pause!.seq);
    expect(events.map((event) => event.type)).toEqual([
      "run_finished",
      "run_started",
      "tool_result",
      "assistant_message",
      "run_finished",
    ]);
    expect(events[1]).toMatchObject({ resumed: true });
    expect(events[2]).toMatchObject({
      errorCode: "approval_expired",
      decision: { action: "expire", by: "opspilot:system", message: "No one approved write_high within 1 second." },
    });
    await harness.runtime.close();
  });
});
