import BetterSqlite3 from "better-sqlite3";
import { Command } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import type { RunEvent } from "../../../src/contracts/events.js";
import type { PauseValue } from "../../../src/contracts/pause/pause.js";
import type { Role } from "../../../src/contracts/user.js";
import { collectEvents } from "../../../src/service/events/recorded-events.js";
import { createDemoTools, OpsStore } from "../../../src/demo/index.js";
import { createHarness, shape } from "../../fixtures/harness.js";

/** The pause a run stopped on, without the event's own fields. */
function pauseOf(events: RunEvent[]): PauseValue {
  const event = events.find((item) => item.type === "loop_interrupt");
  if (!event) throw new Error("the run did not pause");
  const { type: _type, threadId: _threadId, runId: _runId, seq: _seq, ...pause } = event;
  return pause;
}

const ROOT_ADMIN = { id: "root", role: "admin" };
const ROOT_OPERATOR = { id: "root", role: "operator" };
const ROLLBACK = { service: "payment-service", environment: "prod" };
const OPERATOR_REFUSAL =
  "Your role (operator) is not allowed to use rollback_deploy, so you cannot approve or edit call rb1; it keeps waiting for a user who may.";

/** The demo tools (rollback_deploy is admin only) with a model that proposes one rollback, then answers. */
function rollbackHarness(options: { currentRoles?: (userId: string) => readonly Role[] | undefined } = {}) {
  const ops = new OpsStore(new BetterSqlite3(":memory:"));
  const harness = createHarness({
    tools: createDemoTools(ops),
    user: ROOT_ADMIN,
    currentRoles: options.currentRoles,
    script: [callsMessage([{ name: "rollback_deploy", args: ROLLBACK, id: "rb1" }]), answerMessage("Rolled back.")],
  });
  return { harness, rollbacks: () => ops.countActions({ action: "rollback" }) };
}

describe("authority over a pause (design §2.9)", () => {
  it("refuses an approval from a role that may not run the tool, keeps the pause open, and runs it for the admin", async () => {
    const { harness, rollbacks } = rollbackHarness();
    const paused = await harness.ask("roll back payment-service in prod");
    const pause = pauseOf(paused.events);
    expect(pause).toMatchObject({
      interruptType: "confirm_risky",
      calls: [{ callId: "rb1", tool: "rollback_deploy" }],
    });
    const before = await harness.graph.getState({ configurable: { thread_id: paused.threadId } });
    const approve = { decisions: [{ callId: "rb1", action: "approve", argsHash: pause.calls[0]!.argsHash }] };
    const edit = { decisions: [{ callId: "rb1", action: "edit", args: { ...ROLLBACK, environment: "staging" } }] };

    for (const resume of [approve, edit]) {
      await expect(
        harness.runtime.resumeRun({ threadId: paused.threadId, user: ROOT_OPERATOR, resume }),
      ).rejects.toMatchObject({ name: "PermissionDeniedError", code: "permission_denied", message: OPERATOR_REFUSAL });
    }
    const after = await harness.graph.getState({ configurable: { thread_id: paused.threadId } });
    expect(after.config.configurable?.checkpoint_id).toBe(before.config.configurable?.checkpoint_id);
    expect(await harness.runtime.getThread(paused.threadId, ROOT_OPERATOR)).toMatchObject({
      status: "interrupted",
      interrupt: pause,
    });
    expect(await rollbacks()).toBe(0);

    const resumed = await collectEvents(
      await harness.runtime.resumeRun({ threadId: paused.threadId, user: ROOT_ADMIN, resume: approve }),
    );
    expect(resumed.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(shape((await harness.state(paused.threadId)).messages)).toEqual([
      "human",
      "ai:rollback_deploy",
      "tool:rollback_deploy:ok",
      "ai",
    ]);
    expect(await rollbacks()).toBe(1);
    const { decisions } = await harness.storage.threadRecords(paused.threadId);
    expect(decisions.map((row) => [row.call_id, row.action, row.user_id, row.role])).toEqual([
      ["rb1", "approve", "root", "admin"],
    ]);
  });

  it("lets a role that may not run the tool reject it, and records who rejected", async () => {
    const { harness, rollbacks } = rollbackHarness();
    const paused = await harness.ask("roll back payment-service in prod");
    await collectEvents(
      await harness.runtime.resumeRun({
        threadId: paused.threadId,
        user: ROOT_OPERATOR,
        resume: { decisions: [{ callId: "rb1", action: "reject", message: "not now" }] },
      }),
    );
    expect(shape((await harness.state(paused.threadId)).messages)).toEqual([
      "human",
      "ai:rollback_deploy",
      "tool:rollback_deploy:rejected_by_user",
      "ai",
    ]);
    expect(await rollbacks()).toBe(0);
    const { decisions } = await harness.storage.threadRecords(paused.threadId);
    expect(decisions.map((row) => [row.action, row.user_id, row.role, row.message])).toEqual([
      ["reject", "root", "operator", "not now"],
    ]);
  });

  it("refuses the approval once the thread's owner holds no role that may run the tool", async () => {
    let rootRoles: readonly Role[] = ["admin"];
    const { harness, rollbacks } = rollbackHarness({
      currentRoles: (userId) => (userId === "root" ? rootRoles : []),
    });
    const paused = await harness.ask("roll back payment-service in prod");
    const approve = {
      decisions: [{ callId: "rb1", action: "approve", argsHash: pauseOf(paused.events).calls[0]!.argsHash }],
    };
    // The admin token was withdrawn while the pause waited; a request still carrying the old role is refused.
    rootRoles = [];
    await expect(
      harness.runtime.resumeRun({ threadId: paused.threadId, user: ROOT_ADMIN, resume: approve }),
    ).rejects.toMatchObject({
      code: "permission_denied",
      message:
        "The thread's owner (root) no longer holds a role allowed to use rollback_deploy, so call rb1 cannot be approved or edited; it keeps waiting.",
    });
    rootRoles = ["operator"];
    await expect(
      harness.runtime.resumeRun({ threadId: paused.threadId, user: ROOT_ADMIN, resume: approve }),
    ).rejects.toMatchObject({ code: "permission_denied" });
    expect(await rollbacks()).toBe(0);
    expect((await harness.runtime.getThread(paused.threadId, ROOT_ADMIN)).status).toBe("interrupted");

    rootRoles = ["operator", "admin"];
    await collectEvents(
      await harness.runtime.resumeRun({ threadId: paused.threadId, user: ROOT_ADMIN, resume: approve }),
    );
    expect(await rollbacks()).toBe(1);
  });

  it("answers a refused approval through the graph (LangGraph server path) by pausing again with the reason", async () => {
    const { harness, rollbacks } = rollbackHarness();
    const paused = await harness.ask("roll back payment-service in prod");
    const pause = pauseOf(paused.events);
    const config = { configurable: { thread_id: paused.threadId, userId: "root", role: "operator" } };
    await harness.graph.invoke(
      new Command({
        resume: { decisions: [{ callId: "rb1", action: "approve", argsHash: pause.calls[0]!.argsHash }] },
      }),
      config,
    );
    const snapshot = await harness.graph.getState(config);
    expect(snapshot.tasks.flatMap((task) => task.interrupts.map((item) => item.value))).toEqual([
      { ...pause, error: OPERATOR_REFUSAL },
    ]);
    expect(await rollbacks()).toBe(0);
  });

  it("turns an approved call into permission_denied when the user who continues the run may not run it", async () => {
    const { harness, rollbacks } = rollbackHarness();
    const paused = await harness.ask("roll back payment-service in prod");
    const pause = pauseOf(paused.events);
    // The admin's approval is checkpointed, then the process stops before execute_tools runs.
    await harness.graph.invoke(
      new Command({
        resume: { decisions: [{ callId: "rb1", action: "approve", argsHash: pause.calls[0]!.argsHash }] },
      }),
      {
        configurable: { thread_id: paused.threadId, userId: "root", role: "admin" },
        interruptBefore: ["execute_tools"],
      },
    );
    expect((await harness.runtime.getThread(paused.threadId, ROOT_OPERATOR)).unfinished).toBe(true);

    const recovered = await collectEvents(await harness.runtime.recoverRun(paused.threadId, ROOT_OPERATOR));
    expect(recovered.find((event) => event.type === "tool_result")).toMatchObject({
      callId: "rb1",
      tool: "rollback_deploy",
      ok: false,
      errorCode: "permission_denied",
    });
    const messages = (await harness.state(paused.threadId)).messages;
    expect(JSON.parse(String(messages[2]!.content))).toEqual({
      ok: false,
      errorCode: "permission_denied",
      message: "Your role (operator) is not allowed to use rollback_deploy.",
      source: { tool: "rollback_deploy" },
      fetchedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(await rollbacks()).toBe(0);
    expect(await harness.storage.getEntry(paused.threadId, "rb1")).toBeUndefined();
  });
});
