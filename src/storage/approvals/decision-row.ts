import type { Recorder } from "../types.js";

/** A decision's column values in `opspilot_decisions` order, shared by the SQLite and PostgreSQL recorders. */
export function decisionValues(decision: Parameters<Recorder["recordDecision"]>[0], decidedAt: number): unknown[] {
  return [
    decision.threadId,
    decision.callId,
    decision.interruptId,
    decision.action,
    decision.argsHashBefore,
    decision.argsHashAfter ?? null,
    decision.message ?? null,
    decidedAt,
    decision.userId,
    decision.role,
    // JSON text of the four-eyes approvals so far (userId, role, argsHash, at), null for a call one answer decides.
    decision.approvals ? JSON.stringify(decision.approvals) : null,
  ];
}
