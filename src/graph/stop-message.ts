import { randomUUID } from "node:crypto";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ErrorCode, ObservationMeta } from "../contracts/observation.js";
import { notExecuted } from "../execution/tool-message.js";
import { unansweredCalls } from "./calls/pairing.js";
import type { Language } from "../contracts/language.js";
import { loopWords, type LimitWords, type NextStep } from "../contracts/words/loop-words.js";
import type { StopReason } from "../contracts/stop-reasons.js";
import type { LimitHit } from "./guard.js";
import type { StopInfo } from "./state.js";
import { isContextOverflow } from "../context/context-overflow.js";

/** What a run found before it stopped: one line per successful observation. */
export interface Finding {
  tool: string;
  summary: string;
}

/**
 * The advice after a stop. Only a stop on a limit a person can raise (steps, time, budget)
 * advises raising it; a cancel by the user never does, whatever else the run had reached.
 */
function nextStepOf(reason: StopReason): NextStep {
  switch (reason) {
    case "max_steps":
    case "timeout":
    case "budget_exhausted":
      return "limit";
    case "loop_detected":
    case "too_many_fails":
      return "rephrase";
    case "error":
      return "error";
    default:
      return "cancelled";
  }
}

/**
 * What the current run found: one line per successful observation since the last user
 * message (the run's own, across its pauses).
 */
export function findingsOfRun(messages: readonly BaseMessage[]): Finding[] {
  let start = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (HumanMessage.isInstance(messages[i])) {
      start = i;
      break;
    }
  }
  return messages
    .slice(start)
    .filter((message): message is ToolMessage => ToolMessage.isInstance(message))
    .map((message) => ({ tool: message.name ?? "tool", meta: message.artifact as ObservationMeta | undefined }))
    .filter((entry) => entry.meta?.ok)
    .map((entry) => ({ tool: entry.tool, summary: entry.meta!.summary }));
}

/** The assistant message that ends a run stopped by a limit or a cancel: what was found and why it stopped. */
export function stopSummary(options: {
  reason: StopReason;
  detail: string;
  language: Language;
  findings: Finding[];
}): AIMessage {
  const { reason, detail, language, findings } = options;
  const words = loopWords(language);
  const title = words.stopTitle[reason] ?? words.stopped;
  const found =
    findings.length === 0
      ? words.nothingFound
      : words.foundSoFar + findings.map((f) => `- ${f.tool}: ${f.summary}`).join("\n");
  const next = words.nextStep[nextStepOf(reason)];
  const why = reason === "cancelled" || reason === "error" ? "" : detail;
  return new AIMessage({ id: randomUUID(), content: [title, why, found, next].filter(Boolean).join("\n\n") });
}

/** What the calls that will not run are answered with, by stop reason. */
function notExecutedCode(reason: StopReason): ErrorCode {
  if (reason === "cancelled") return "cancelled";
  return reason === "error" ? "internal" : "skipped";
}

/**
 * The messages that end a run stopped by a limit, a cancel or an error, so every stop is an
 * answer (design §2.8): a "not executed" result for each call still unanswered (pairing holds
 * for the next model call), then the assistant message saying what was found and why it stopped.
 */
export function stopWithAnswer(options: {
  /** The thread's history. */
  messages: readonly BaseMessage[];
  /** Why the run stops. */
  stop: StopInfo;
  language: Language;
  /** What the run found before it stopped (its successful observations in `messages` when absent). */
  findings?: Finding[];
  /** Cap on each result's text. */
  maxChars: number;
}): BaseMessage[] {
  const { stop, language } = options;
  const results = notExecuted(
    unansweredCalls(options.messages),
    { errorCode: notExecutedCode(stop.reason), message: `Not executed: ${stop.detail}` },
    options.maxChars,
  );
  const findings = options.findings ?? findingsOfRun(options.messages);
  const summary = stopSummary({ reason: stop.reason, detail: stop.detail, language, findings });
  return [...results, summary];
}

/** The stop of a run a guard rule ended: its reason and one sentence, in the user's language, saying why. */
export function limitStop(hit: LimitHit, language: Language): StopInfo {
  return { reason: hit.reason, detail: limitDetail(hit, loopWords(language).limits) };
}

function limitDetail(hit: LimitHit, words: LimitWords): string {
  switch (hit.rule) {
    case "max_steps":
      return words.maxSteps(hit.limit);
    case "timeout":
      return words.timeout(hit.limitMs);
    case "tokens":
      return words.tokens(hit.tokens);
    case "cost":
      return words.cost(hit.costUsd);
    case "failed_steps":
      // One "time" is one step in which every call failed (design §1).
      return words.failedSteps(hit.steps);
    case "identical_calls":
      return words.identicalCalls(hit.times);
    case "cycle":
      return hit.length === 2 ? words.alternation : words.cycle(hit.length, CYCLE_EXAMPLES[hit.length]!);
    case "approval_pauses":
      return words.approvalPauses(hit.limit);
    default: {
      const _exhaustive: never = hit;
      return _exhaustive;
    }
  }
}

const CYCLE_EXAMPLES: Record<number, string> = { 3: "A→B→C→A→B→C", 4: "A→B→C→D→A→B→C→D" };

/** The stop of a run cancelled by the user. */
export function cancelledStop(language: Language): { reason: "cancelled"; detail: string } {
  return { reason: "cancelled", detail: loopWords(language).runCancelled };
}

/** The assistant message for a model call that failed after retries: readable, no internals. */
export function modelFailureMessage(error: unknown, language: Language): AIMessage {
  const status = (error as { status?: unknown } | null)?.status;
  const name = (error as { name?: unknown } | null)?.name;
  const words = loopWords(language).model;
  if (isContextOverflow(error)) return new AIMessage({ id: randomUUID(), content: words.contextFull });
  let what: string;
  if (status === 401 || status === 403) what = words.credentials;
  else if (status === 400 || status === 404 || status === 422) what = words.rejected(String(status));
  else if (status === 429) what = words.rateLimited;
  else if (name === "TimeoutError" || /timeout|timed out/i.test(String((error as Error)?.message)))
    what = words.timedOut;
  else what = words.unreachable;
  return new AIMessage({ id: randomUUID(), content: `${what} ${words.endsHere}` });
}
