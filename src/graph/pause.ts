import { createHash } from "node:crypto";
import type { Batch, PlannedCall } from "./state.js";
import type { ToolRegistry } from "../tools/registry.js";
import { argsHash } from "../contracts/canonical.js";
import { ResumeValueSchema, type Decision, type InterruptValue } from "../contracts/pause.js";
import type { Language } from "../contracts/language.js";
import { describeIssues, missingAskFields } from "./validation.js";

/** Calls of the batch that wait for the user. */
export function waitingCalls(batch: Batch | null): PlannedCall[] {
  return (batch?.calls ?? []).filter((call) => call.status === "needs_params" || call.status === "needs_approval");
}

/** The interrupt value of design §4 for the waiting calls; deterministic, since review_calls re-runs on resume. */
export function buildInterrupt(batch: Batch, language: Language): InterruptValue {
  const waiting = waitingCalls(batch);
  const needsParams = waiting.some((call) => call.status === "needs_params");
  const interruptId =
    "int_" +
    createHash("sha256")
      .update(`${batch.step}:${waiting.map((c) => `${c.callId}:${c.argsHash}`).join(",")}`)
      .digest("hex")
      .slice(0, 16);
  const zh = language === "zh";
  const reason = waiting
    .map((call) =>
      call.status === "needs_params"
        ? (call.reason ??
          (zh
            ? `${call.tool} 需要您提供：${call.missing!.map((f) => f.name).join("、")}`
            : `${call.tool} needs: ${call.missing!.map((f) => f.name).join(", ")}`))
        : zh
          ? `${call.tool} 是高风险操作，需要您批准、修改或拒绝。`
          : `${call.tool} is a high-risk action; approve, edit or reject it.`,
    )
    .join(zh ? "；" : "; ");
  return {
    interruptId,
    interruptType: needsParams ? "params_required" : "confirm_risky",
    reason,
    calls: waiting.map((call) => ({
      callId: call.callId,
      tool: call.tool,
      args: call.args,
      argsHash: call.argsHash,
      risk: call.risk,
      ...(call.missing ? { missing: call.missing } : {}),
    })),
  };
}

/** A resume applied to a batch, or the reason it was refused. */
export type ResumeOutcome = { ok: true; batch: Batch; decisions: Decision[] } | { ok: false; error: string };

/** Applies a resume value to the waiting calls (design §4, §2.5); pure. Refuses the whole resume on any mismatch. */
export function applyResume(batch: Batch, resume: unknown, registry: ToolRegistry): ResumeOutcome {
  const parsed = ResumeValueSchema.safeParse(resume);
  if (!parsed.success)
    return {
      ok: false,
      error: `Malformed resume value: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(value)"}: ${i.message}`).join("; ")}`,
    };
  const waiting = new Map(waitingCalls(batch).map((call) => [call.callId, call]));
  const decisions = parsed.data.decisions;
  const seen = new Set<string>();
  for (const decision of decisions) {
    if (!waiting.has(decision.callId))
      return {
        ok: false,
        error: `Unknown call id ${decision.callId}; waiting calls: ${[...waiting.keys()].join(", ")}.`,
      };
    if (seen.has(decision.callId)) return { ok: false, error: `Call ${decision.callId} has more than one decision.` };
    seen.add(decision.callId);
  }
  const unanswered = [...waiting.keys()].filter((id) => !seen.has(id));
  if (unanswered.length > 0)
    return {
      ok: false,
      error: `No decision for waiting call(s): ${unanswered.join(", ")}; answer every waiting call.`,
    };
  const decided = new Map<string, PlannedCall>();
  for (const decision of decisions) {
    const result = decide(waiting.get(decision.callId)!, decision, registry);
    if (typeof result === "string") return { ok: false, error: result };
    decided.set(decision.callId, result);
  }
  return {
    ok: true,
    batch: { ...batch, calls: batch.calls.map((call) => decided.get(call.callId) ?? call) },
    decisions,
  };
}

function decide(call: PlannedCall, decision: Decision, registry: ToolRegistry): PlannedCall | string {
  if (decision.argsHash !== undefined && decision.argsHash !== call.argsHash) {
    return `argsHash mismatch for call ${call.callId}: it does not match the ${call.tool} call that is waiting; reload the pause and decide again.`;
  }
  if (decision.action === "reject") {
    const note = decision.message ? `: ${decision.message}` : ".";
    return {
      ...call,
      status: "failed",
      failure: { errorCode: "rejected_by_user", message: `The user rejected this ${call.tool} call${note}` },
    };
  }
  const tool = registry.get(call.tool)!;
  let args: Record<string, unknown>;
  if (decision.action === "edit") args = { ...decision.args! };
  else if (call.status === "needs_params") {
    if (!decision.params)
      return `Call ${call.callId} (${call.tool}) needs params: ${call.missing!.map((f) => f.name).join(", ")}.`;
    args = { ...call.args, ...decision.params };
  } else {
    if (decision.params && Object.keys(decision.params).length > 0)
      return `Call ${call.callId} has no missing fields; to change its args use action "edit".`;
    args = call.args;
  }
  const stillMissing = missingAskFields(tool, args);
  if (stillMissing.length > 0)
    return `Call ${call.callId} (${call.tool}) still misses: ${stillMissing.map((f) => f.name).join(", ")}.`;
  const parsed = tool.schema.safeParse(args);
  if (!parsed.success) return describeIssues(tool.name, parsed.error);
  const frozen = parsed.data as Record<string, unknown>;
  const hash = argsHash(frozen);
  return {
    ...call,
    args: frozen,
    argsHash: hash,
    approvedHash: hash,
    status: "ready",
    missing: undefined,
    reason: undefined,
  };
}
