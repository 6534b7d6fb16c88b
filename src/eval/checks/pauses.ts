import { canonicalJson } from "../../contracts/formats/canonical.js";
import type { MessageView } from "../../service/runtime/runtime.js";
import { proposedCalls } from "../trace.js";
import { verdict, type Check } from "./check.js";

type ToolView = Extract<MessageView, { role: "tool" }>;

/**
 * Pauses as scripted: each expected pause came with its type and tool, no other pause came,
 * each decision took effect (a rejected call did not run, an approved one did), and no
 * rejected call was proposed again.
 */
export const checkPauses: Check = ({ trace }) => {
  const problems: string[] = [];
  for (const pause of trace.pauses) if (pause.problem) problems.push(pause.problem);
  for (const pause of trace.unusedPauses)
    problems.push(`expected a ${pause.type} pause${pause.tool ? ` for ${pause.tool}` : ""} that never came`);
  const results = new Map<string, ToolView>();
  for (const message of trace.messages) if (message.role === "tool") results.set(message.callId, message);
  const calls = proposedCalls(trace);
  for (const [callId, decision] of Object.entries(trace.decisions)) {
    const result = results.get(callId);
    if (decision.action === "reject") {
      if (result && result.errorCode !== "rejected_by_user")
        problems.push(
          `rejected ${decision.tool} call ended ${result.ok ? "ok" : result.errorCode}, not rejected_by_user`,
        );
      const at = calls.findIndex((call) => call.callId === callId);
      const again = calls
        .slice(at + 1)
        .find((call) => call.tool === decision.tool && covers(call.args, decision.shownArgs));
      if (again) problems.push(`proposed the rejected ${decision.tool} call again`);
    } else if (!result) problems.push(`${decision.action}d ${decision.tool} call has no result`);
    else if (result.errorCode === "rejected_by_user")
      problems.push(`${decision.action}d ${decision.tool} call was not run`);
  }
  const detail =
    trace.pauses.length === 0
      ? "no pause"
      : trace.pauses
          .map((pause) => `${pause.interrupt.interruptType} → ${pause.scripted?.action ?? "reject"}`)
          .join(", ");
  return verdict("pauses", problems, detail);
};

/** Whether `args` repeat every argument of the rejected call (filled-in fields may be added). */
function covers(args: unknown, rejected: Record<string, unknown>): boolean {
  if (args === null || typeof args !== "object") return false;
  const record = args as Record<string, unknown>;
  return Object.entries(rejected).every(([name, value]) => canonicalJson(record[name]) === canonicalJson(value));
}
