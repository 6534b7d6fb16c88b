import { interrupt } from "@langchain/langgraph";
import type { AgentStateType, AgentStateUpdate } from "../graph/state.js";
import { applyResume, buildInterrupt, pauseExpiry, waitingCalls } from "../graph/pause.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { Recorder } from "../storage/types.js";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { threadIdOf, userOf } from "../graph/context.js";
import { readRunOptions } from "../graph/config.js";

/**
 * `review_calls`: the only node that calls `interrupt()`, once per execution. One pause
 * carries every waiting call. Nothing with a side effect runs before `interrupt()`, because
 * LangGraph re-runs this node from its start on resume. An answer is decided once: one that
 * does not fit ends the execution with the refusal kept in the batch, and `review_calls`
 * runs again and pauses anew with the reason. (Calling `interrupt()` again in the same
 * execution would have LangGraph replay the refused answer to that first call on the next
 * resume, where it would be judged again, under the next answerer.)
 */
export function makeReviewCalls(deps: { registry: ToolRegistry; recorder: Recorder }) {
  return async function reviewCalls(state: AgentStateType, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> {
    const run = state.run!;
    const { refusal, ...batch } = state.batch!;
    // The pause began when the run last worked, which stays put while it waits: its deadline is the same on every re-run.
    const source = { registry: deps.registry, since: run.lastActiveAt, requestedBy: run.requestedBy };
    const value = buildInterrupt(batch, run.language, source);
    const answer: unknown = interrupt(refusal ? { ...value, error: refusal } : value);
    // The user of this invocation is the one who answers: a resume runs with the answering user's role.
    const answerer = userOf(readRunOptions(config));
    const outcome = applyResume(batch, answer, {
      registry: deps.registry,
      answerer,
      language: run.language,
      pause: { interruptId: value.interruptId, deadline: pauseExpiry(batch, source) },
      requestedBy: run.requestedBy,
    });
    if (!outcome.ok) return { batch: { ...batch, refusal: outcome.error } };
    // An expiry is opspilot's decision, not the answering user's.
    const decider = outcome.decidedBy ?? answerer;
    const before = new Map(batch.calls.map((call) => [call.callId, call.argsHash]));
    for (const decision of outcome.decisions) {
      const after = outcome.batch.calls.find((call) => call.callId === decision.callId);
      await deps.recorder.recordDecision({
        threadId: threadIdOf(config),
        callId: decision.callId,
        interruptId: value.interruptId,
        action: decision.action,
        userId: decider.id,
        role: decider.role,
        argsHashBefore: before.get(decision.callId)!,
        ...(decision.action === "reject" || decision.action === "expire" ? {} : { argsHashAfter: after?.argsHash }),
        ...(decision.message ? { message: decision.message } : {}),
        ...(after?.approvals ? { approvals: after.approvals } : {}),
      });
    }
    // A four-eyes call that still waits for its next approval pauses anew, on the same clock and deadline.
    if (waitingCalls(outcome.batch).length > 0) return { batch: outcome.batch };
    const now = Date.now();
    // The pause is not counted against the wall-time limit: restart the clock where it stood.
    const activeMs = Math.max(0, run.lastActiveAt - run.startedAt);
    return { batch: outcome.batch, run: { ...run, startedAt: now - activeMs, lastActiveAt: now, resumed: true } };
  };
}
