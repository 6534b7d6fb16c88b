import { randomUUID } from "node:crypto";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ErrorCode, ObservationMeta } from "../contracts/observation.js";
import { notExecuted } from "../execution/tool-message.js";
import { unansweredCalls } from "./pairing.js";
import type { Language } from "../contracts/language.js";
import type { StopReason } from "../contracts/stop-reasons.js";
import type { LimitHit } from "./guard.js";
import type { StopInfo } from "./state.js";
import { isContextOverflow } from "../context/context-overflow.js";

/** What a run found before it stopped: one line per successful observation. */
export interface Finding {
  tool: string;
  summary: string;
}

const REASON_TITLE: Record<Language, Partial<Record<StopReason, string>>> = {
  en: {
    max_steps: "I stopped because the step limit was reached.",
    timeout: "I stopped because the time limit was reached.",
    loop_detected: "I stopped because I was repeating the same calls.",
    too_many_fails: "I stopped because the tools kept failing.",
    budget_exhausted: "I stopped because the run's budget is spent.",
    cancelled: "The run was cancelled.",
    error: "Sorry, this run hit an internal error and stopped.",
  },
  zh: {
    max_steps: "已达到步数上限，我先停在这里。",
    timeout: "已达到时间上限，我先停在这里。",
    loop_detected: "我在重复同样的调用，所以先停在这里。",
    too_many_fails: "工具接连失败，所以我先停在这里。",
    budget_exhausted: "本次运行的预算已用完，我先停在这里。",
    cancelled: "运行已取消。",
    error: "抱歉，这次运行出现内部错误，已停止。",
  },
};

/** What the user can do next, by kind of stop: a limit can be raised; a loop, a cancel or a failure only asked again. */
const NEXT_STEP: Record<Language, Record<NextStep, string>> = {
  en: {
    limit: "You can rephrase, narrow the question, or raise the limit and ask again.",
    rephrase: "You can rephrase or narrow the question and ask again.",
    cancelled: "Ask again whenever you are ready.",
    error: "You can try again.",
  },
  zh: {
    limit: "您可以换个问法、缩小范围，或放宽限制后再试。",
    rephrase: "您可以换个问法或缩小范围后再问。",
    cancelled: "准备好后可以再问一次。",
    error: "您可以再试一次。",
  },
};

type NextStep = "limit" | "rephrase" | "cancelled" | "error";

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
  const zh = language === "zh";
  const title = REASON_TITLE[language][reason] ?? (zh ? "运行已停止。" : "The run stopped.");
  const found =
    findings.length === 0
      ? zh
        ? "到目前为止还没有拿到可用的结果。"
        : "Nothing useful was found so far."
      : (zh ? "目前已查到：\n" : "What I found so far:\n") +
        findings.map((f) => `- ${f.tool}: ${f.summary}`).join("\n");
  const next = NEXT_STEP[language][nextStepOf(reason)];
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
  return { reason: hit.reason, detail: limitDetail(hit, language === "zh") };
}

function limitDetail(hit: LimitHit, zh: boolean): string {
  switch (hit.rule) {
    case "max_steps":
      return zh ? `已达到最多 ${hit.limit} 步的上限。` : `It reached the limit of ${hit.limit} steps.`;
    case "timeout":
      return zh ? `运行时间超过了 ${hit.limitMs} 毫秒的上限。` : `It ran longer than the ${hit.limitMs} ms limit.`;
    case "tokens":
      return zh
        ? `已用完本次运行的 token 预算（${hit.tokens} tokens）。`
        : `It spent its token budget (${hit.tokens} tokens).`;
    case "cost":
      return zh
        ? `已用完本次运行的费用预算（${hit.costUsd.toFixed(4)} 美元）。`
        : `It spent its cost budget ($${hit.costUsd.toFixed(4)}).`;
    case "failed_steps":
      // One "time" is one step in which every call failed (design §1).
      return zh ? `工具连续失败了 ${hit.steps} 次。` : `Tools failed ${hit.steps} times in a row.`;
    case "identical_calls":
      return zh
        ? `同样的调用已连续提出 ${hit.times} 次。`
        : `The same calls were proposed ${hit.times} times in a row.`;
    case "cycle":
      if (hit.length === 2)
        return zh ? "调用在两组之间来回往复（A→B→A→B）。" : "The calls alternated between two sets (A→B→A→B).";
      return zh
        ? `调用在 ${hit.length} 组之间反复循环（${CYCLE_EXAMPLES[hit.length]}）。`
        : `The calls went round a cycle of ${hit.length} sets (${CYCLE_EXAMPLES[hit.length]}).`;
    case "approval_pauses":
      return zh
        ? `本次运行已请求批准 ${hit.limit} 次，又提出了需要批准的操作；为避免反复打扰，先停在这里。`
        : `It already asked for approval ${hit.limit} times in this run and proposed another action that needs approval.`;
    default: {
      const _exhaustive: never = hit;
      return _exhaustive;
    }
  }
}

const CYCLE_EXAMPLES: Record<number, string> = { 3: "A→B→C→A→B→C", 4: "A→B→C→D→A→B→C→D" };

/** The stop of a run cancelled by the user. */
export function cancelledStop(language: Language): { reason: "cancelled"; detail: string } {
  return { reason: "cancelled", detail: language === "zh" ? "运行已被取消。" : "The run was cancelled." };
}

/** Said when the model refused a request as too long twice, the second time after a harder compaction. */
const CONTEXT_FULL: Record<Language, string> = {
  en:
    "The model refused the request as longer than its context window, even after older steps were folded into " +
    "working memory and the request was compacted once more. This run ends here. Ask again: the next question on " +
    "this thread starts from a compact context. If it keeps happening, set OPSPILOT_CONTEXT_TOKENS to the " +
    "model's real window.",
  zh:
    "模型认为请求超出了它的上下文窗口；即使把较早的步骤归入工作记忆、又进一步压缩了一次，仍然超出。本次运行到此结束。" +
    "请再问一次：这个会话的下一个问题会从压缩后的上下文开始。如果反复出现，请把 OPSPILOT_CONTEXT_TOKENS 设为模型实际的窗口大小。",
};

/** The assistant message for a model call that failed after retries: readable, no internals. */
export function modelFailureMessage(error: unknown, language: Language): AIMessage {
  const status = (error as { status?: unknown } | null)?.status;
  const name = (error as { name?: unknown } | null)?.name;
  const zh = language === "zh";
  if (isContextOverflow(error)) return new AIMessage({ id: randomUUID(), content: CONTEXT_FULL[language] });
  let what: string;
  if (status === 401 || status === 403)
    what = zh
      ? "模型服务拒绝了凭据（请检查 OPENAI_API_KEY 或 ANTHROPIC_API_KEY）。"
      : "The model endpoint refused the credentials (check OPENAI_API_KEY or ANTHROPIC_API_KEY).";
  else if (status === 400 || status === 404 || status === 422)
    what = zh
      ? `模型服务拒绝了请求（HTTP ${String(status)}）。`
      : `The model endpoint rejected the request (HTTP ${String(status)}).`;
  else if (status === 429)
    what = zh
      ? "模型服务限流，重试后仍未成功。"
      : "The model endpoint kept rate-limiting the request, even after retries.";
  else if (name === "TimeoutError" || /timeout|timed out/i.test(String((error as Error)?.message)))
    what = zh ? "模型服务未在时限内响应。" : "The model endpoint did not answer in time.";
  else what = zh ? "暂时无法调用模型服务。" : "The model endpoint could not be reached.";
  const tail = zh ? "本次运行到此结束，请稍后再试。" : "This run ends here; please try again later.";
  return new AIMessage({ id: randomUUID(), content: `${what} ${tail}` });
}
