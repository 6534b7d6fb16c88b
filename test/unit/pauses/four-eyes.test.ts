import { Command } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import { createHarness, shape } from "../../fixtures/harness.js";
import { testTools } from "../../fixtures/test-tools.js";
import { applyToolPolicy } from "../../../src/tools/policy.js";
import { collectEvents } from "../../../src/service/events/recorded-events.js";
import { approvalsLine } from "../../../src/graph/pause/approvals.js";
import { pendingInterrupt } from "../../../src/graph/pause.js";
import type { RunUser } from "../../../src/contracts/user.js";
import type { PauseValue } from "../../../src/contracts/pause/pause.js";
import type { ObservationMeta } from "../../../src/contracts/observation.js";
import type { ToolMessage } from "@langchain/core/messages";

const REQUESTER: RunUser = { id: "rita", role: "operator" };
const OLGA: RunUser = { id: "olga", role: "operator" };
const BOB: RunUser = { id: "bob", role: "admin" };
const VIEWER: RunUser = { id: "vera", role: "viewer" };

/** A harness whose model proposes write_high on prod once; the tool wants two approvers, neither the requester. */
function fourEyes(approvals: { required?: number; distinctFromRequester?: boolean; expiresAfter?: string } = {}) {
  const writes: string[] = [];
  const tools = applyToolPolicy(testTools({ writes }), {
    write_high: { approvals: { required: 2, distinctFromRequester: true, ...approvals } },
  });
  const harness = createHarness({
    tools,
    user: REQUESTER,
    script: [
      callsMessage([{ name: "write_high", args: { target: "order", environment: "prod" }, id: "w1" }]),
      answerMessage("Done."),
    ],
  });
  return { harness, writes };
}

async function pauseOf(harness: ReturnType<typeof fourEyes>["harness"], threadId: string, user: RunUser) {
  const view = await harness.runtime.getThread(threadId, user);
  expect(view.status).toBe("interrupted");
  return view.interrupt!;
}

const approve = (pause: PauseValue) => ({
  decisions: [{ callId: "w1", action: "approve" as const, argsHash: pause.calls[0]!.argsHash }],
});

async function answer(
  harness: ReturnType<typeof fourEyes>["harness"],
  threadId: string,
  user: RunUser,
  resume: unknown,
) {
  return collectEvents(await harness.runtime.resumeRun({ threadId, user, resume }));
}

describe("four eyes: approvals.required and distinctFromRequester", () => {
  it("refuses the requester's own approval, waits after one other approver, and runs once on the second", async () => {
    const { harness, writes } = fourEyes();
    const { threadId } = await harness.ask("restart order on prod");
    const first = await pauseOf(harness, threadId, REQUESTER);
    expect(first.calls[0]!.approvals).toEqual({
      required: 2,
      given: [],
      distinctFromRequester: true,
      requestedBy: "rita",
    });
    expect(first.reason).toContain("0 of 2 approvals; rita, who asked, cannot approve.");

    // The requester's approval is refused and changes nothing.
    await expect(answer(harness, threadId, REQUESTER, approve(first))).rejects.toMatchObject({
      code: "permission_denied",
      message: expect.stringContaining("You (rita) started this run, and write_high must be approved by someone else"),
    });
    expect((await pauseOf(harness, threadId, REQUESTER)).interruptId).toBe(first.interruptId);
    expect((await harness.storage.threadRecords(threadId)).decisions).toEqual([]);

    // One other approver: recorded, and the call still waits, in a new pause that names them.
    const afterOlga = await answer(harness, threadId, OLGA, approve(first));
    expect(afterOlga.map((event) => event.type)).toContain("loop_interrupt");
    expect(writes).toEqual([]);
    const second = await pauseOf(harness, threadId, OLGA);
    expect(second.interruptId).not.toBe(first.interruptId);
    expect(second.calls[0]!.approvals?.given.map((given) => given.userId)).toEqual(["olga"]);
    expect(approvalsLine(second.calls[0]!.approvals!)).toBe("1 of 2 approvals (olga); rita, who asked, cannot approve");
    const recorded = (await harness.storage.threadRecords(threadId)).decisions;
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ action: "approve", user_id: "olga", role: "operator" });
    expect(JSON.parse(String(recorded[0]!.approvals))).toEqual([
      expect.objectContaining({ userId: "olga", role: "operator", argsHash: first.calls[0]!.argsHash }),
    ]);

    // The same approver again is refused; the pause is unchanged.
    await expect(answer(harness, threadId, OLGA, approve(second))).rejects.toMatchObject({
      code: "permission_denied",
      message: expect.stringContaining(
        "You (olga) already approved call w1 (write_high); it waits for 1 more approval",
      ),
    });
    expect((await pauseOf(harness, threadId, REQUESTER)).interruptId).toBe(second.interruptId);

    // A second distinct approver runs it, once.
    await answer(harness, threadId, BOB, approve(second));
    expect(writes).toEqual([`write_high:order:prod:${threadId}:w1`]);
    const state = await harness.state(threadId);
    expect(shape(state.messages)).toEqual(["human", "ai:write_high", "tool:write_high:ok", "ai"]);
    const meta = (state.messages[2] as ToolMessage).artifact as ObservationMeta;
    expect(meta.decision).toMatchObject({ action: "approve", userId: "bob", approvers: ["olga", "bob"] });
    const final = (await harness.storage.threadRecords(threadId)).decisions;
    expect(final).toHaveLength(1);
    expect(final[0]).toMatchObject({ action: "approve", user_id: "bob", role: "admin" });
    expect(JSON.parse(String(final[0]!.approvals)).map((given: { userId: string }) => given.userId)).toEqual([
      "olga",
      "bob",
    ]);
    // Answering the finished pause again runs nothing: the owner finds nothing waiting, another approver no thread.
    await expect(answer(harness, threadId, REQUESTER, approve(second))).rejects.toMatchObject({ code: "not_paused" });
    await expect(answer(harness, threadId, OLGA, approve(second))).rejects.toMatchObject({ code: "thread_not_found" });
    expect(writes).toHaveLength(1);
  });

  it.each([
    ["the first approver", OLGA],
    ["the second approver", BOB],
    ["the requester", REQUESTER],
  ])("rejects the call when %s rejects after one approval", async (_who, rejecter) => {
    const { harness, writes } = fourEyes();
    const { threadId } = await harness.ask("restart order on prod");
    await answer(harness, threadId, OLGA, approve(await pauseOf(harness, threadId, REQUESTER)));
    await answer(harness, threadId, rejecter, {
      decisions: [{ callId: "w1", action: "reject", message: "not during the freeze" }],
    });
    expect(writes).toEqual([]);
    const state = await harness.state(threadId);
    expect(shape(state.messages)).toEqual(["human", "ai:write_high", "tool:write_high:rejected_by_user", "ai"]);
    const [decision] = (await harness.storage.threadRecords(threadId)).decisions;
    expect(decision).toMatchObject({ action: "reject", user_id: rejecter.id, message: "not during the freeze" });
    expect(JSON.parse(String(decision!.approvals)).map((given: { userId: string }) => given.userId)).toEqual(["olga"]);
  });

  it("counts approvals of the args shown only: an edit starts the count again, and the requester's edit counts none", async () => {
    const { harness, writes } = fourEyes();
    const { threadId } = await harness.ask("restart order on prod");
    await answer(harness, threadId, OLGA, approve(await pauseOf(harness, threadId, REQUESTER)));
    // The requester may change the args; that counts no approval and drops olga's, given for other args.
    await answer(harness, threadId, REQUESTER, {
      decisions: [{ callId: "w1", action: "edit", args: { target: "order", environment: "staging" } }],
    });
    const edited = await pauseOf(harness, threadId, OLGA);
    expect(edited.calls[0]!.args).toEqual({ target: "order", environment: "staging" });
    expect(edited.calls[0]!.approvals?.given).toEqual([]);
    // Olga's approval of the new args counts again.
    await answer(harness, threadId, OLGA, approve(edited));
    expect((await pauseOf(harness, threadId, OLGA)).calls[0]!.approvals?.given.map((given) => given.userId)).toEqual([
      "olga",
    ]);
    await answer(harness, threadId, BOB, approve(await pauseOf(harness, threadId, BOB)));
    expect(writes).toEqual([`write_high:order:staging:${threadId}:w1`]);
  });

  it("lets other approvers see and answer the pause, never a viewer, and only while it waits", async () => {
    const { harness } = fourEyes();
    const { threadId } = await harness.ask("restart order on prod");
    await expect(harness.runtime.getThread(threadId, VIEWER)).rejects.toMatchObject({ code: "thread_not_found" });
    await expect(
      answer(harness, threadId, VIEWER, { decisions: [{ callId: "w1", action: "reject" }] }),
    ).rejects.toMatchObject({ code: "thread_not_found" });
    // Another approver may not write to the thread or stop it.
    await expect(harness.runtime.cancelRun(threadId, OLGA)).rejects.toMatchObject({ code: "thread_not_found" });
    const pause = await pauseOf(harness, threadId, OLGA);
    await answer(harness, threadId, OLGA, approve(pause));
    await answer(harness, threadId, BOB, approve(await pauseOf(harness, threadId, BOB)));
    // Answered: the thread is its owner's again.
    await expect(harness.runtime.getThread(threadId, OLGA)).rejects.toMatchObject({ code: "thread_not_found" });
    expect((await harness.runtime.getThread(threadId, REQUESTER)).status).toBe("idle");
  });

  it("keeps the first pause's deadline after one approval, and expires the call with that approval recorded", async () => {
    const { harness, writes } = fourEyes({ expiresAfter: "1s" });
    const { threadId } = await harness.ask("restart order on prod");
    const first = await pauseOf(harness, threadId, REQUESTER);
    await answer(harness, threadId, OLGA, approve(first));
    const second = await pauseOf(harness, threadId, REQUESTER);
    expect(second.interruptId).not.toBe(first.interruptId);
    expect(second.expiresAt).toBe(first.expiresAt);
    const jobs = harness.serveApprovalExpiry(10);
    for (let tries = 0; (await harness.runtime.getThread(threadId, REQUESTER)).status !== "idle"; tries++) {
      expect(tries).toBeLessThan(300);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await jobs.stop();
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(first.expiresAt!));
    expect(writes).toEqual([]);
    expect(shape((await harness.state(threadId)).messages)).toEqual([
      "human",
      "ai:write_high",
      "tool:write_high:approval_expired",
      "ai",
    ]);
    const [decision] = (await harness.storage.threadRecords(threadId)).decisions;
    expect(decision).toMatchObject({ action: "expire", user_id: "opspilot:system" });
    expect(JSON.parse(String(decision!.approvals)).map((given: { userId: string }) => given.userId)).toEqual(["olga"]);
    await harness.runtime.close();
  });

  it("holds on the LangGraph server path too: the caller is the approver, and the pause waits for the second", async () => {
    const { harness, writes } = fourEyes({ required: 2, distinctFromRequester: false });
    const config = (user: RunUser) => ({
      configurable: { thread_id: "t-hosted", langgraph_auth_user: { identity: user.id, role: user.role } },
    });
    await harness.graph.invoke({ messages: [{ role: "user", content: "restart order on prod" }] }, config(REQUESTER));
    const pending = async () =>
      pendingInterrupt(await harness.graph.getState({ configurable: { thread_id: "t-hosted" } }));
    const first = (await pending())!;
    expect(first.calls[0]!.approvals).toMatchObject({ required: 2, given: [], distinctFromRequester: false });
    await harness.graph.invoke(new Command({ resume: approve(first) }), config(REQUESTER));
    const second = (await pending())!;
    expect(second.calls[0]!.approvals?.given.map((given) => given.userId)).toEqual(["rita"]);
    // The same person once more: the pause says why and keeps waiting.
    await harness.graph.invoke(new Command({ resume: approve(second) }), config(REQUESTER));
    expect((await pending())!.error).toContain("You (rita) already approved call w1");
    expect(writes).toEqual([]);
    await harness.graph.invoke(new Command({ resume: approve(second) }), config(OLGA));
    expect(await pending()).toBeUndefined();
    expect(writes).toHaveLength(1);
  });
});
