import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";
import { decisionsFromFlags } from "../../src/cli/pause/decisions.js";
import { describePause, resumeInstructions } from "../../src/cli/pause/pause.js";
import { promptResume } from "../../src/cli/pause/prompt.js";
import { createPrompter } from "../../src/cli/prompter.js";
import { EventRenderer } from "../../src/cli/output/render.js";
import { SigintRouter } from "../../src/cli/sigint.js";
import { createStyle } from "../../src/cli/output/style.js";
import type { RunEvent } from "../../src/contracts/events.js";
import type { PauseValue, WaitingCall } from "../../src/contracts/pause/pause.js";

const style = createStyle(false);
const ENVIRONMENT = { name: "environment", description: "Which environment?", enum: ["prod", "staging"] };
const logsCall: WaitingCall = {
  callId: "call_logs",
  tool: "search_logs",
  args: { service: "payment-service" },
  argsHash: "h-logs",
  risk: "low",
  missing: [ENVIRONMENT],
};
const restartCall: WaitingCall = {
  callId: "call_restart",
  tool: "restart_service",
  args: { service: "payment-service" },
  argsHash: "h-restart",
  risk: "high",
  missing: [ENVIRONMENT],
};
const confirmCall: WaitingCall = {
  callId: "call_confirm",
  tool: "restart_service",
  args: { service: "payment-service", environment: "staging" },
  argsHash: "h-confirm",
  risk: "high",
};
const pauseOf = (calls: WaitingCall[], interruptType: PauseValue["interruptType"] = "params_required"): PauseValue => ({
  interruptId: "int_1",
  interruptType,
  reason: "waiting",
  calls,
});

/** Answers the pause's prompts from `typed` (one answer per line), as a script piping into the CLI would. */
async function answer(pause: PauseValue, typed: string) {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = "";
  output.on("data", (chunk: Buffer) => (written += chunk.toString()));
  const prompter = createPrompter({ input, output, terminal: false });
  input.end(typed);
  const printed: string[] = [];
  const resume = await promptResume(pause, {
    prompter,
    write: (line) => printed.push(line),
    style,
    tagOf: (id) => `[${id}]`,
  });
  prompter.close();
  return { resume, printed: printed.join("\n"), prompts: written };
}

describe("pause prompts with injected streams", () => {
  it("asks each missing field, refuses values outside the allowed ones, and accepts a number or a name", async () => {
    const { resume, printed, prompts } = await answer(pauseOf([logsCall]), "moon\n2\n");
    expect(resume).toEqual({
      decisions: [{ callId: "call_logs", action: "approve", argsHash: "h-logs", params: { environment: "staging" } }],
    });
    expect(printed).toContain('environment must be one of prod, staging (got "moon")');
    expect(prompts).toBe("environment [prod/staging] › moon\nenvironment [prod/staging] › 2\n");
  });

  it("asks to approve a high-risk call after its missing field, and rejects it with the user's reason", async () => {
    const { resume, printed } = await answer(pauseOf([restartCall]), "PROD\nr\nnot during business hours\n");
    expect(printed).toContain(
      '[call_restart] high risk: restart_service {"service":"payment-service","environment":"prod"}',
    );
    expect(resume).toEqual({
      decisions: [
        { callId: "call_restart", action: "reject", argsHash: "h-restart", message: "not during business hours" },
      ],
    });
  });

  it("approves a filled high-risk call with its params, and answers every call of a mixed pause", async () => {
    const { resume } = await answer(pauseOf([logsCall, restartCall]), "prod\nstaging\na\n");
    expect(resume).toEqual({
      decisions: [
        { callId: "call_logs", action: "approve", argsHash: "h-logs", params: { environment: "prod" } },
        { callId: "call_restart", action: "approve", argsHash: "h-restart", params: { environment: "staging" } },
      ],
    });
  });

  it("takes edited args as a JSON object after refusing other input", async () => {
    const { resume, printed } = await answer(
      pauseOf([confirmCall], "confirm_risky"),
      'maybe\ne\n[1]\n{"service":"payment-service","environment":"prod"}\n',
    );
    expect(printed).toContain("type a, e or r");
    expect(printed).toContain("the args must be a JSON object");
    expect(resume).toEqual({
      decisions: [
        {
          callId: "call_confirm",
          action: "edit",
          argsHash: "h-confirm",
          args: { service: "payment-service", environment: "prod" },
        },
      ],
    });
  });

  it("rejects from a field prompt with /reject, and gives up at the end of input", async () => {
    expect((await answer(pauseOf([logsCall]), "/reject\n\n")).resume).toEqual({
      decisions: [{ callId: "call_logs", action: "reject", argsHash: "h-logs" }],
    });
    expect((await answer(pauseOf([logsCall]), "")).resume).toBeUndefined();
  });
});

describe("decision flags", () => {
  it("fills each call's missing fields from --param and needs --approve for high-risk calls", () => {
    const pause = pauseOf([logsCall, restartCall]);
    expect(() => decisionsFromFlags(pause, { approve: false, params: ["environment=prod"] })).toThrow(
      "restart_service is a high-risk action: add --approve",
    );
    expect(decisionsFromFlags(pause, { approve: true, params: ["environment=Prod"] })).toEqual({
      decisions: [
        { callId: "call_logs", action: "approve", argsHash: "h-logs", params: { environment: "prod" } },
        { callId: "call_restart", action: "approve", argsHash: "h-restart", params: { environment: "prod" } },
      ],
    });
  });

  it("refuses flags that do not fit the pause", () => {
    expect(() => decisionsFromFlags(pauseOf([logsCall]), { approve: false, params: ["region=eu"] })).toThrow(
      'No waiting call asks for "region" (missing fields: environment).',
    );
    expect(() => decisionsFromFlags(pauseOf([logsCall]), { approve: true, params: [] })).toThrow(
      "search_logs needs environment: add --param environment=prod (allowed: prod|staging).",
    );
    expect(() =>
      decisionsFromFlags(pauseOf([logsCall, restartCall]), { approve: false, params: [], edit: "{}" }),
    ).toThrow("2 calls are waiting; --edit needs exactly one.");
    expect(() => decisionsFromFlags(pauseOf([logsCall]), { approve: true, params: [], reject: "" })).toThrow(
      "Use one kind of answer",
    );
  });

  it("rejects every waiting call with the optional reason", () => {
    expect(
      decisionsFromFlags(pauseOf([logsCall, confirmCall]), { approve: false, params: [], reject: "wrong service" }),
    ).toEqual({
      decisions: [
        { callId: "call_logs", action: "reject", argsHash: "h-logs", message: "wrong service" },
        { callId: "call_confirm", action: "reject", argsHash: "h-confirm", message: "wrong service" },
      ],
    });
  });

  it("parses a bare --reject, and checks --role and --max-steps", () => {
    expect(parseCliArgs(["ask", "--thread", "t1", "--reject"]).decisions.reject).toBe("");
    expect(parseCliArgs(["ask", "--reject", "--thread", "t1"]).thread).toBe("t1");
    expect(
      parseCliArgs(["ask", "--role", "viewer", "--user", "alice", "--max-steps", "3", "hi", "there"]),
    ).toMatchObject({
      command: "ask",
      question: "hi there",
      user: { id: "alice", role: "viewer" },
      limits: { maxSteps: 3 },
    });
    expect(() => parseCliArgs(["ask", "--max-steps", "0", "hi"])).toThrow(
      "--max-steps must be an integer from 1 to 100",
    );
    expect(() => parseCliArgs(["serve"])).toThrow('Unknown command "serve": use ask or chat.');
  });
});

describe("pause instructions and event lines", () => {
  it("marks a risky pause that also asks for a field, and names the action each approving command approves", () => {
    const pause = pauseOf([restartCall], "confirm_risky");
    expect(describePause(pause, { style, tagOf: () => "[1]" })[0]).toBe(
      "⚠ Waiting for your approval of a high-risk action (confirm_risky): waiting",
    );
    expect(resumeInstructions("t-1", pause, style).slice(0, 3)).toEqual([
      "To answer, run one of:",
      '  npm run ask -- --thread t-1 --param environment=prod --approve   approves restart_service {"service":"payment-service","environment":"prod"}',
      '  npm run ask -- --thread t-1 --param environment=staging --approve   approves restart_service {"service":"payment-service","environment":"staging"}',
    ]);
  });

  it("prints a four-eyes call's count, who approved it and that its requester cannot", () => {
    const approvals = {
      required: 2,
      given: [{ userId: "olga", role: "operator", at: "2026-12-02T03:04:05.000Z" }],
      distinctFromRequester: true,
      requestedBy: "rita",
    };
    const lines = describePause(pauseOf([{ ...confirmCall, approvals }], "confirm_risky"), {
      style,
      tagOf: () => "[1]",
    });
    expect(lines.slice(1)).toEqual([
      '  [1] restart_service {"service":"payment-service","environment":"staging"}  · high risk · call call_confirm',
      "      1 of 2 approvals (olga); rita, who asked, cannot approve",
      "      approved by olga (operator, 2026-12-02T03:04:05.000Z)",
    ]);
  });

  it("prints a ready --resume command when several calls wait", () => {
    const lines = resumeInstructions("t-1", pauseOf([logsCall, restartCall]), style).join("\n");
    expect(lines).toContain("npm run ask -- --thread t-1 --param environment=prod --approve");
    expect(lines).toContain(
      `npm run ask -- --thread t-1 --resume '{"decisions":[{"callId":"call_logs","action":"approve","argsHash":"h-logs"},{"callId":"call_restart","action":"approve","argsHash":"h-restart"}]}'`,
    );
  });

  it("lists calls proposed together under one step before their results, and tags results like their calls", () => {
    const renderer = new EventRenderer(style, { callIds: ["old"], stepsSoFar: 2 });
    const base = { threadId: "t", runId: "r", seq: 1 };
    const events: RunEvent[] = [
      { ...base, type: "tool_call", callId: "a", tool: "read_a", args: { q: 1 } },
      { ...base, type: "tool_call", callId: "b", tool: "read_b", args: {} },
      {
        ...base,
        type: "tool_result",
        callId: "b",
        tool: "read_b",
        ok: false,
        errorCode: "timeout",
        summary: "timed out",
        durationMs: 5_003,
      },
      { ...base, type: "tool_result", callId: "a", tool: "read_a", ok: true, summary: "1 result(s)", durationMs: 4 },
    ];
    expect(events.flatMap((event) => renderer.render(event))).toEqual([
      "step 3",
      '  → [2] read_a {"q":1}',
      "  → [3] read_b {}",
      "  ✗ [3] read_b timeout · timed out (5.0 s)",
      "  ✓ [2] read_a · 1 result(s) (4 ms)",
    ]);
  });

  it("routes Ctrl-C to the latest handler, then to the idle action", () => {
    const seen: string[] = [];
    const router = new SigintRouter(() => seen.push("idle"));
    const releaseRun = router.push(() => seen.push("run"));
    const releasePrompt = router.push(() => seen.push("prompt"));
    router.fire();
    releasePrompt();
    router.fire();
    releaseRun();
    router.fire();
    expect(seen).toEqual(["prompt", "run", "idle"]);
  });
});
