import type { RunEvent } from "../contracts/events.js";
import type { Decision, PauseValue, ResumeValue, WaitingCall } from "../contracts/pause/pause.js";
import type { RunUser } from "../contracts/user.js";
import { collectEvents } from "../service/events/recorded-events.js";
import type { Runtime } from "../service/runtime/runtime.js";
import type { ScenarioTools } from "./scenario-tools.js";
import type { Scenario, ScriptedPause } from "./scenario-schema.js";
import type { CallDecisionRecord, PauseRecord, ScenarioTrace } from "./trace.js";

/** Most pauses one scenario answers before it is cut short (a model that pauses forever). */
const MAX_PAUSES = 12;

/** What a scenario runs against. */
export interface ScenarioTarget {
  /** The runtime the server and the CLI use. */
  runtime: Runtime;
  /** Each scenario's own demo dataset and planted failures. */
  tools: ScenarioTools;
}

/**
 * Runs one scenario on a fresh thread: asks the question, answers each pause with the
 * scenario's next scripted decision (a pause the script does not expect is rejected, so
 * nothing unscripted ever runs), and returns what a client saw.
 */
export async function runScenario(target: ScenarioTarget, scenario: Scenario): Promise<ScenarioTrace> {
  const started = Date.now();
  const user: RunUser = { id: "eval", role: scenario.role };
  const { runtime } = target;
  const threadId = await runtime.createThread(user);
  target.tools.plant(threadId, scenario.faults, scenario.planted);
  const events: RunEvent[] = [];
  const pauses: PauseRecord[] = [];
  const decisions: Record<string, CallDecisionRecord> = {};
  const script = [...scenario.pauses];
  let error: string | undefined;
  try {
    events.push(...(await collectEvents(await runtime.startRun({ threadId, message: scenario.question, user }))));
    while (lastStop(events) === "interrupted") {
      const interrupt = lastPause(events);
      if (!interrupt) break;
      if (pauses.length >= MAX_PAUSES) {
        error = `cut short after ${MAX_PAUSES} pauses`;
        await runtime.cancelRun(threadId, user);
        break;
      }
      const answer = answerPause(interrupt, script);
      pauses.push(answer.record);
      Object.assign(decisions, answer.decisions);
      events.push(...(await collectEvents(await runtime.resumeRun({ threadId, resume: answer.record.resume, user }))));
    }
  } catch (caught) {
    error = caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught);
  } finally {
    target.tools.clear(threadId);
  }
  const thread = await runtime.getThread(threadId, user).catch((caught: unknown) => {
    error ??= `the thread could not be read: ${caught instanceof Error ? caught.message : String(caught)}`;
    return { status: "idle" as const, messages: [] };
  });
  const finished = events.filter((event) => event.type === "run_finished");
  const last = finished.at(-1);
  const lastMessage = thread.messages.at(-1);
  return {
    threadId,
    question: scenario.question,
    events,
    messages: thread.messages,
    pauses,
    decisions,
    unusedPauses: script,
    answer: lastMessage?.role === "assistant" && lastMessage.toolCalls.length === 0 ? lastMessage.content : "",
    stopReason: thread.status === "interrupted" ? "interrupted" : (last?.stopReason ?? "error"),
    steps: Math.max(0, ...finished.map((event) => event.steps)),
    tokens: Math.max(0, ...finished.map((event) => event.tokens ?? 0)) || modelTokens(events),
    costUsd: Math.max(0, ...finished.map((event) => event.costUsd ?? 0)),
    latencyMs: Date.now() - started,
    error,
  };
}

function lastStop(events: readonly RunEvent[]): string | undefined {
  const last = events.at(-1);
  return last?.type === "run_finished" ? last.stopReason : undefined;
}

function lastPause(events: readonly RunEvent[]): PauseValue | undefined {
  const found = events.findLast((event) => event.type === "loop_interrupt");
  if (found?.type !== "loop_interrupt") return undefined;
  const { interruptId, interruptType, reason, calls, error } = found;
  return { interruptId, interruptType, reason, calls, error };
}

/** Tokens from the model steps, when the run's end does not carry them. */
function modelTokens(events: readonly RunEvent[]): number {
  return events.reduce((sum, event) => {
    const step = event.type === "tool_call" || event.type === "assistant_message" ? event.model : undefined;
    return sum + (step ? step.inputTokens + step.outputTokens : 0);
  }, 0);
}

/**
 * The answer to one pause: the next scripted pause when its type (and tool) fit, consumed;
 * otherwise a rejection of every waiting call, and the script is kept for a later pause.
 */
export function answerPause(
  interrupt: PauseValue,
  script: ScriptedPause[],
): { record: PauseRecord; decisions: Record<string, CallDecisionRecord> } {
  const next = script[0];
  const problem = mismatch(interrupt, next);
  const scripted = problem ? undefined : script.shift();
  const chosen: ScriptedPause = scripted ?? {
    type: interrupt.interruptType,
    action: "reject",
    message: "Not expected by this evaluation scenario; rejected.",
  };
  const decisions: Record<string, CallDecisionRecord> = {};
  const answers = interrupt.calls.map((call): Decision => {
    const decision = decide(call, chosen);
    decisions[call.callId] = {
      action: chosen.action,
      tool: call.tool,
      shownArgs: call.args,
      finalArgs: decision.action === "edit" ? (decision.args ?? {}) : { ...call.args, ...decision.params },
    };
    return decision;
  });
  const resume: ResumeValue = { decisions: answers };
  return { record: { interrupt, scripted, resume, problem }, decisions };
}

function decide(call: WaitingCall, pause: ScriptedPause): Decision {
  const base = { callId: call.callId, argsHash: call.argsHash, message: pause.message };
  if (pause.action === "reject") return { ...base, action: "reject" };
  if (pause.action === "edit")
    return { ...base, action: "edit", args: { ...call.args, ...pause.params, ...pause.args } };
  const missing = new Set((call.missing ?? []).map((field) => field.name));
  const params = Object.fromEntries(Object.entries(pause.params ?? {}).filter(([name]) => missing.has(name)));
  return Object.keys(params).length > 0 ? { ...base, action: "approve", params } : { ...base, action: "approve" };
}

/** Why a pause does not fit the next scripted one, or undefined when it does. */
function mismatch(interrupt: PauseValue, next: ScriptedPause | undefined): string | undefined {
  const tools = [...new Set(interrupt.calls.map((call) => call.tool))].join(", ");
  const met = `a ${interrupt.interruptType} pause for ${tools}`;
  if (!next) return `${met} that the scenario does not expect`;
  if (next.type !== interrupt.interruptType) return `${met} where the scenario expects ${next.type}`;
  if (next.tool && interrupt.calls.some((call) => call.tool !== next.tool))
    return `${met} where the scenario expects ${next.type} for ${next.tool}`;
  return undefined;
}
