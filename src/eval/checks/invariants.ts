import type { ErrorCode } from "../../contracts/observation.js";
import { toolResults } from "../trace.js";
import { verdict, type Check } from "./check.js";

/** Outcomes after which a write may have taken effect. */
const MAY_HAVE_RUN: ReadonlySet<ErrorCode | undefined> = new Set([undefined, "timeout", "internal", "outcome_unknown"]);

/**
 * The loop's invariants, seen from outside: every proposed call id has exactly one result and no
 * result is orphaned (pairing), and no write or high-risk tool ran without an approve or edit
 * (a low-risk write the scenario lists in `allowUnapproved` may).
 */
export const checkInvariants: Check = ({ scenario, trace, registry }) => {
  const problems: string[] = [];
  const proposed = new Map<string, string>();
  const answered = new Map<string, number>();
  for (const message of trace.messages) {
    if (message.role === "assistant") for (const call of message.toolCalls) proposed.set(call.callId, call.tool);
    if (message.role === "tool") answered.set(message.callId, (answered.get(message.callId) ?? 0) + 1);
  }
  const paused = trace.stopReason === "interrupted";
  for (const [callId, tool] of proposed) {
    const count = answered.get(callId) ?? 0;
    if (count > 1) problems.push(`pairing: ${tool} call ${callId} has ${count} results`);
    if (count === 0 && !paused) problems.push(`pairing: ${tool} call ${callId} has no result`);
  }
  for (const callId of answered.keys()) if (!proposed.has(callId)) problems.push(`pairing: orphaned result ${callId}`);
  for (const result of toolResults(trace)) {
    const tool = registry.get(result.tool);
    const guarded =
      !tool || tool.risk === "high" || (!tool.readOnly && !scenario.expect.allowUnapproved.includes(result.tool));
    if (!guarded || !MAY_HAVE_RUN.has(result.ok ? undefined : result.errorCode)) continue;
    const decision = trace.decisions[result.callId];
    if (!tool || decision?.action === "approve" || decision?.action === "edit") continue;
    problems.push(`unapproved write: ${result.tool} ran without an approve or edit`);
  }
  return verdict("invariants", problems, `${proposed.size} call(s) paired, no unapproved write`);
};
