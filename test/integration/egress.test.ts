import { ToolMessage } from "@langchain/core/messages";
import { z } from "zod";
import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import { defineTool, type ToolDefinition } from "../../src/tools/types.js";
import { applyToolPolicy } from "../../src/tools/policy.js";
import type { ToolPolicy } from "../../src/config/schema.js";
import { createHarness } from "../fixtures/harness.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { answerMessage, callsMessage, type ScriptStep } from "../fixtures/scripted-model.js";

const LOG_LINE = "09:12:01 ERROR PAY-5031 connection pool exhausted (db=10.20.30.40:5432)";

/** An untrusted read whose result a model may copy, and a chat post: egress, low risk. */
function egressTools(posted: string[]): ToolDefinition[] {
  return [
    defineTool({
      name: "search_logs",
      description: "Search a service's logs.",
      schema: z.object({ service: z.string().describe("Service id") }),
      readOnly: true,
      risk: "low",
      timeoutMs: 1_000,
      run: async (args) => ({ service: args.service, lines: [LOG_LINE, "09:12:02 WARN retrying"] }),
    }),
    defineTool({
      name: "post_message",
      description: "Post a message to a chat channel.",
      schema: z.object({ channel: z.string().describe("Channel, e.g. #ops"), message: z.string().describe("Text") }),
      readOnly: false,
      risk: "low",
      egress: true,
      roles: ["operator", "admin"],
      timeoutMs: 1_000,
      run: async (args) => {
        posted.push(`${args.channel}: ${args.message}`);
        return { channel: args.channel, posted: true };
      },
    }),
  ];
}

/** The model reads the logs and answers with the log line; asked to post, it posts its summary. */
const SUMMARY = `Summary: payment-service fails since 09:12 — ${LOG_LINE}. Next: raise the pool size.`;
const investigate: ScriptStep[] = [
  callsMessage([{ name: "search_logs", args: { service: "payment-service" }, id: "c-logs" }]),
  answerMessage(SUMMARY),
];
const postSummary: ScriptStep[] = [
  callsMessage([{ name: "post_message", args: { channel: "#ops", message: SUMMARY }, id: "c-post" }]),
  answerMessage("Posted the summary to #ops."),
];

type Pause = Extract<RunEvent, { type: "loop_interrupt" }>;
const harnesses: Array<{ close(): void }> = [];
afterEach(() => {
  for (const harness of harnesses.splice(0)) harness.close();
});
function harnessWith(script: ScriptStep[], tools: ToolDefinition[]) {
  const harness = createHarness({ script, tools });
  harnesses.push(harness);
  return harness;
}

describe("egress control: data that came from outside does not leave without a person (issue 30)", () => {
  it("pauses 'post the summary to #ops' after an investigation, shows what came from tool output, and posts once on approval", async () => {
    const posted: string[] = [];
    const harness = harnessWith([...investigate, ...postSummary], egressTools(posted));
    const investigation = await harness.ask("what is wrong with payment-service?");
    // The result that tainted the thread says so in the stream.
    expect(investigation.events.find((event) => event.type === "tool_result")).toMatchObject({
      tool: "search_logs",
      untrusted: true,
    });
    const asked = await harness.askOn(investigation.threadId, "post the summary to #ops");
    const pauses = asked.events.filter((event): event is Pause => event.type === "loop_interrupt");
    expect(pauses).toHaveLength(1);
    const [pause] = pauses;
    expect(pause!.interruptType).toBe("confirm_risky");
    expect(pause!.reason).toBe(
      "post_message sends data out after the thread read content from search_logs, a source that may carry instructions; approve, edit or reject it.",
    );
    expect(pause!.calls).toEqual([
      expect.objectContaining({
        tool: "post_message",
        args: { channel: "#ops", message: SUMMARY },
        risk: "high",
        egress: {
          sources: ["search_logs"],
          copied: [{ field: "message", text: LOG_LINE, from: "search_logs" }],
        },
      }),
    ]);
    expect(posted).toEqual([]);
    // Nothing ran yet, and the thread says what tainted it.
    const thread = await harness.runtime.getThread(investigation.threadId, harness.user);
    expect(thread.taint).toEqual({ sources: ["search_logs"] });

    const call = pause!.calls[0]!;
    const approved = await harness.resume(investigation.threadId, {
      decisions: [{ callId: call.callId, action: "approve", argsHash: call.argsHash }],
    });
    expect(posted).toEqual([`#ops: ${SUMMARY}`]);
    expect(approved.events.find((event) => event.type === "tool_result")).toMatchObject({
      tool: "post_message",
      ok: true,
      decision: { action: "approve", by: harness.user.id },
    });
    expect(approved.events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(harness.violations).toEqual([]);
  });

  it("runs a low-risk egress call at once while the thread holds only the user's words", async () => {
    const posted: string[] = [];
    const harness = harnessWith(
      [
        callsMessage([{ name: "post_message", args: { channel: "#ops", message: "deploy at 14:00" } }]),
        answerMessage("Done."),
      ],
      egressTools(posted),
    );
    const { events } = await harness.ask("post 'deploy at 14:00' to #ops");
    expect(events.some((event) => event.type === "loop_interrupt")).toBe(false);
    expect(posted).toEqual(["#ops: deploy at 14:00"]);
  });

  it("does not pause after reading a tool the config marks trusted, and never pauses a tool it marks not egress", async () => {
    const policies: Array<Record<string, ToolPolicy>> = [
      { search_logs: { trusted: true } },
      { post_message: { egress: false } },
    ];
    for (const policy of policies) {
      const posted: string[] = [];
      const harness = harnessWith([...investigate, ...postSummary], applyToolPolicy(egressTools(posted), policy));
      const { threadId } = await harness.ask("what is wrong with payment-service?");
      const { events } = await harness.askOn(threadId, "post the summary to #ops");
      expect(
        events.some((event) => event.type === "loop_interrupt"),
        JSON.stringify(policies),
      ).toBe(false);
      expect(posted).toHaveLength(1);
    }
  });

  it("refuses an answer with other args' hash, and an approval by a viewer, as for any high-risk call: nothing is posted", async () => {
    const posted: string[] = [];
    const harness = harnessWith([...investigate, ...postSummary], egressTools(posted));
    const { threadId } = await harness.ask("what is wrong with payment-service?");
    const asked = await harness.askOn(threadId, "post the summary to #ops");
    const call = asked.events.find((event): event is Pause => event.type === "loop_interrupt")!.calls[0]!;
    const answer = (user: { id: string; role: string }, argsHash: string) =>
      harness.runtime
        .resumeRun({ threadId, user, resume: { decisions: [{ callId: call.callId, action: "approve", argsHash }] } })
        .then((stream) => collectEvents(stream));
    await expect(answer(harness.user, "0".repeat(64))).rejects.toMatchObject({
      name: "ResumeRejectedError",
      message: expect.stringContaining("argsHash mismatch"),
    });
    await expect(answer({ id: harness.user.id, role: "viewer" }, call.argsHash)).rejects.toMatchObject({
      name: "PermissionDeniedError",
    });
    expect(posted).toEqual([]);
  });

  it("rejecting the egress pause posts nothing and tells the model", async () => {
    const posted: string[] = [];
    const harness = harnessWith(
      [...investigate, postSummary[0]!, answerMessage("Understood, nothing was posted.")],
      egressTools(posted),
    );
    const { threadId } = await harness.ask("what is wrong with payment-service?");
    const asked = await harness.askOn(threadId, "post the summary to #ops");
    const pause = asked.events.find((event): event is Pause => event.type === "loop_interrupt")!;
    const rejected = await harness.resume(threadId, {
      decisions: [{ callId: pause.calls[0]!.callId, action: "reject", message: "not to #ops" }],
    });
    expect(posted).toEqual([]);
    const result = rejected.messages.find(
      (message) => ToolMessage.isInstance(message) && message.tool_call_id === pause.calls[0]!.callId,
    );
    expect(String(result?.content)).toContain("rejected_by_user");
  });
});
