import type { RunEvent } from "../contracts/events.js";
import type { PauseValue, ResumeValue } from "../contracts/pause/pause.js";
import type { MessageView } from "../service/runtime/runtime.js";
import type { ScriptedPause } from "./scenario-schema.js";

/** One pause the scenario met, and how it was answered. */
export interface PauseRecord {
  /** The pause as clients see it. */
  interrupt: PauseValue;
  /** The scripted answer used, when one fitted. */
  scripted?: ScriptedPause;
  /** The resume value sent. */
  resume: ResumeValue;
  /** Why the pause did not fit the script, when it did not. */
  problem?: string;
}

/** The decision that answered one call, with the args it ran with. */
export interface CallDecisionRecord {
  /** The decision. */
  action: "approve" | "edit" | "reject";
  /** The tool. */
  tool: string;
  /** Args as shown in the pause. */
  shownArgs: Record<string, unknown>;
  /** Args after the answer (params filled in, or the edit). */
  finalArgs: Record<string, unknown>;
}

/** Everything a scenario's run left that a client can see: the material every check reads. */
export interface ScenarioTrace {
  /** The thread the scenario ran on. */
  threadId: string;
  /** The user's question. */
  question: string;
  /** Every event of every run (the start and each resume), in order. */
  events: RunEvent[];
  /** The thread's messages at the end. */
  messages: MessageView[];
  /** The pauses met, in order. */
  pauses: PauseRecord[];
  /** Decisions by call id. */
  decisions: Record<string, CallDecisionRecord>;
  /** Scripted pauses that no pause used. */
  unusedPauses: ScriptedPause[];
  /** The final answer: the last assistant message without tool calls (empty when there is none). */
  answer: string;
  /** How the last run ended (`interrupted` when a pause was left open). */
  stopReason: string;
  /** Model steps, counted across pauses. */
  steps: number;
  /** Tokens spent across the scenario's runs. */
  tokens: number;
  /** Dollars spent at the configured prices. */
  costUsd: number;
  /** Wall time of the whole scenario, pauses answered at once. */
  latencyMs: number;
  /** A failure that ended the scenario early (a refused resume, a crash), when there was one. */
  error?: string;
}

/** The observation texts of a trace: what the tools really returned, as the model read it. */
export function observationTexts(trace: ScenarioTrace): string[] {
  return trace.messages.flatMap((message) => (message.role === "tool" ? [message.content] : []));
}

/** The tool calls a trace's runs proposed, in order. */
export function proposedCalls(trace: ScenarioTrace): Array<Extract<RunEvent, { type: "tool_call" }>> {
  return trace.events.filter((event): event is Extract<RunEvent, { type: "tool_call" }> => event.type === "tool_call");
}

/** The tool results of a trace, in order. */
export function toolResults(trace: ScenarioTrace): Array<Extract<RunEvent, { type: "tool_result" }>> {
  return trace.events.filter(
    (event): event is Extract<RunEvent, { type: "tool_result" }> => event.type === "tool_result",
  );
}

/** The args a call ran with: the answer's args when a pause answered it, else as proposed. */
export function effectiveArgs(trace: ScenarioTrace, callId: string, proposed: unknown): Record<string, unknown> {
  const decided = trace.decisions[callId];
  if (decided) return decided.finalArgs;
  return proposed !== null && typeof proposed === "object" ? (proposed as Record<string, unknown>) : {};
}
