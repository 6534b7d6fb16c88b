import { Command } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import { argsHash } from "../../../src/contracts/formats/canonical.js";
import type { RunEvent } from "../../../src/contracts/events.js";
import type { PauseValue } from "../../../src/contracts/pause/pause.js";
import { buildInterrupt } from "../../../src/graph/pause.js";
import type { Batch } from "../../../src/graph/state.js";
import { createHarness } from "../../fixtures/harness.js";
import { testTools } from "../../fixtures/test-tools.js";

/** The pause a run stopped on, without the event's own fields. */
function pauseOf(events: RunEvent[]): PauseValue {
  const event = events.find((item) => item.type === "loop_interrupt");
  if (!event) throw new Error("the run did not pause");
  const { type: _type, threadId: _threadId, runId: _runId, seq: _seq, ...pause } = event;
  return pause;
}

const ENVIRONMENT = { name: "environment", description: "Which environment", enum: ["prod", "staging"] };

/** A harness whose model proposes one write_high call with `args`, then answers. */
function writeHarness(args: Record<string, unknown>, id = "w1") {
  const writes: string[] = [];
  const harness = createHarness({
    tools: testTools({ writes }),
    script: [callsMessage([{ name: "write_high", args, id }]), answerMessage("Done.")],
  });
  return { harness, writes };
}

describe("params fill only the missing fields (design §4)", () => {
  it("refuses an approval whose params change a field that was not missing, naming it, and changes nothing", async () => {
    const { harness, writes } = writeHarness({ target: "order" });
    const paused = await harness.ask("restart order");
    const before = await harness.graph.getState({ configurable: { thread_id: paused.threadId } });
    await expect(
      harness.runtime.resumeRun({
        threadId: paused.threadId,
        user: harness.user,
        resume: {
          decisions: [{ callId: "w1", action: "approve", params: { environment: "prod", target: "payment" } }],
        },
      }),
    ).rejects.toMatchObject({
      name: "ResumeRejectedError",
      code: "resume_rejected",
      message:
        'Call w1 (write_high): params may only fill the missing fields (environment); "target" was not asked for. To change other args, use action "edit".',
    });
    const after = await harness.graph.getState({ configurable: { thread_id: paused.threadId } });
    expect(after.config.configurable?.checkpoint_id).toBe(before.config.configurable?.checkpoint_id);
    expect(writes).toEqual([]);
    expect((await harness.storage.threadRecords(paused.threadId)).decisions).toEqual([]);
  });

  it("refuses params on a call that misses nothing, naming every key", async () => {
    const { harness, writes } = writeHarness({ target: "order", environment: "staging" });
    const paused = await harness.ask("restart order in staging");
    await expect(
      harness.runtime.resumeRun({
        threadId: paused.threadId,
        user: harness.user,
        resume: { decisions: [{ callId: "w1", action: "approve", params: { environment: "prod", target: "pay" } }] },
      }),
    ).rejects.toThrow(
      'Call w1 (write_high): params may only fill the missing fields (none); "environment", "target" were not asked for. To change other args, use action "edit".',
    );
    expect(writes).toEqual([]);
  });

  it("refuses the same params through the graph (LangGraph server path) by pausing again with the reason", async () => {
    const { harness, writes } = writeHarness({ target: "order" });
    const paused = await harness.ask("restart order");
    const config = { configurable: { thread_id: paused.threadId } };
    await harness.graph.invoke(
      new Command({
        resume: { decisions: [{ callId: "w1", action: "approve", params: { environment: "prod", target: "pay" } }] },
      }),
      config,
    );
    const snapshot = await harness.graph.getState(config);
    expect(snapshot.tasks.flatMap((task) => task.interrupts.map((item) => item.value))).toEqual([
      {
        ...pauseOf(paused.events),
        error:
          'Call w1 (write_high): params may only fill the missing fields (environment); "target" was not asked for. To change other args, use action "edit".',
      },
    ]);
    expect(writes).toEqual([]);
  });
});

describe("a high-risk call that also misses fields", () => {
  it("pauses once as confirm_risky with its form, and runs the final args once they are approved", async () => {
    const { harness, writes } = writeHarness({ target: "order" });
    const paused = await harness.ask("restart order");
    const pause = pauseOf(paused.events);
    expect(pause).toEqual({
      interruptId: expect.stringMatching(/^int_[0-9a-f]{16}$/),
      interruptType: "confirm_risky",
      reason: "write_high needs: environment; it is a high-risk action: approve the final args, edit or reject it.",
      calls: [
        {
          callId: "w1",
          tool: "write_high",
          args: { target: "order" },
          argsHash: argsHash({ target: "order" }),
          risk: "high",
          missing: [ENVIRONMENT],
        },
      ],
      // LangChain's shape: a call that misses fields cannot be approved as shown, only edited or rejected.
      actionRequests: [
        {
          name: "write_high",
          args: { target: "order" },
          description:
            "write_high needs: environment; it is a high-risk action: approve the final args, edit or reject it.",
        },
      ],
      reviewConfigs: [{ actionName: "write_high", allowedDecisions: ["edit", "reject"] }],
    });

    const resumed = await harness.resume(paused.threadId, {
      decisions: [
        { callId: "w1", action: "approve", argsHash: pause.calls[0]!.argsHash, params: { environment: "prod" } },
      ],
    });
    expect(resumed.events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(writes).toEqual([`write_high:order:prod:${paused.threadId}:w1`]);
    const { decisions } = await harness.storage.threadRecords(paused.threadId);
    expect(
      decisions.map((row) => [row.action, row.args_hash_before, row.args_hash_after, row.user_id, row.role]),
    ).toEqual([
      [
        "approve",
        argsHash({ target: "order" }),
        argsHash({ target: "order", environment: "prod" }),
        "tester",
        "operator",
      ],
    ]);
  });

  it("says so in both languages, and keeps params_required for pauses without a high-risk call", () => {
    const call = (callId: string, tool: string, risk: "low" | "high") => ({
      callId,
      tool,
      args: { target: "order" },
      argsHash: argsHash({ target: "order" }),
      readOnly: false,
      risk,
    });
    const mixed: Batch = {
      step: 1,
      calls: [
        { ...call("l1", "write_low", "low"), status: "needs_params", missing: [ENVIRONMENT] },
        { ...call("h1", "write_high", "high"), status: "needs_params", missing: [ENVIRONMENT] },
      ],
    };
    expect(buildInterrupt(mixed, "en")).toMatchObject({
      interruptType: "confirm_risky",
      reason:
        "write_low needs: environment; write_high needs: environment; it is a high-risk action: approve the final args, edit or reject it.",
    });
    expect(buildInterrupt(mixed, "zh")).toMatchObject({
      interruptType: "confirm_risky",
      reason:
        "write_low 需要您提供：environment；write_high 需要您提供：environment，且是高风险操作：请确认最终参数后批准、修改或拒绝。",
    });
    const lowOnly: Batch = { step: 1, calls: [mixed.calls[0]!] };
    expect(buildInterrupt(lowOnly, "en")).toMatchObject({
      interruptType: "params_required",
      reason: "write_low needs: environment",
    });
  });
});
