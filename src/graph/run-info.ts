import { randomUUID } from "node:crypto";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunInfo } from "./state.js";
import type { StopReason } from "../contracts/stop-reasons.js";
import { detectLanguage } from "../contracts/language.js";
import { textOf } from "../models/message-text.js";

/** Whether the latest message is the user's, so a new run starts. */
export function startsNewRun(messages: readonly BaseMessage[]): boolean {
  const last = messages[messages.length - 1];
  return last !== undefined && HumanMessage.isInstance(last);
}

/** Fresh bookkeeping for a run that starts now. */
export function newRunInfo(
  messages: readonly BaseMessage[],
  runId: string | undefined,
  now: number,
  requestedBy?: string,
): RunInfo {
  const last = messages[messages.length - 1];
  const text = last ? messageText(last) : "";
  return {
    runId: runId ?? randomUUID(),
    startedAt: now,
    lastActiveAt: now,
    steps: 0,
    failsInRow: 0,
    approvalPauses: 0,
    recentSteps: [],
    tokens: 0,
    costUsd: 0,
    language: detectLanguage(text),
    resumed: false,
    ...(requestedBy !== undefined ? { requestedBy } : {}),
  };
}

/** The plain text of a message's content. */
export function messageText(message: BaseMessage): string {
  return textOf(message.content);
}

/** The record of a run's end (design §7), from the run's own bookkeeping; tokens and cost when it has them. */
export function runEnd(
  run: Pick<RunInfo, "runId" | "steps" | "startedAt" | "resumed"> &
    Partial<Pick<RunInfo, "tokens" | "costUsd" | "toolCostUnits">>,
  stopReason: StopReason,
  now = Date.now(),
) {
  return {
    runId: run.runId,
    stopReason,
    steps: run.steps,
    durationMs: now - run.startedAt,
    resumed: run.resumed,
    ...(run.tokens !== undefined ? { tokens: run.tokens } : {}),
    ...(run.costUsd !== undefined ? { costUsd: run.costUsd } : {}),
    ...(run.toolCostUnits !== undefined ? { toolCostUnits: run.toolCostUnits } : {}),
  };
}
