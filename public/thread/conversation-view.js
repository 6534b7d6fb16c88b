// The view of the run follower's state: draws into the transcript what changed from one state to the
// next (the follower's states are immutable, so an unchanged run or call is the same object).
import { fillResult, markWaiting } from "./call-card.js";
import { applyEvent } from "./run-follower.js";

/** Draws into `transcript` what changed from state `before` to state `after`. */
export function drawChanges(transcript, before, after) {
  if (before === after) return;
  for (const run of after.runs) {
    const previous = before.runs.find((item) => item.runId === run.runId);
    if (run !== previous) drawRun(transcript, previous, run, after);
  }
  for (const [callId, call] of Object.entries(after.calls)) {
    const previous = before.calls[callId];
    if (call === previous) continue;
    const card = transcript.cards.get(callId);
    if (call.state === "waiting" && (previous?.state !== "waiting" || previous.risk !== call.risk))
      markWaiting(card, call.risk);
    if (call.result && call.result !== previous?.result) fillResult(card, call.result, transcript.loadResult);
  }
}

function drawRun(transcript, previous, run, after) {
  const { runId } = run;
  if (run.state === "running" && previous?.state !== "running") transcript.started(runId);
  for (const block of run.blocks) {
    if (previous?.blocks.includes(block)) continue;
    if (block.kind === "step") {
      const index = run.steps.findIndex((step) => step.key === block.key);
      const step = run.steps[index];
      transcript.addStep(runId, step.key, step.step, step.step ?? index + 1);
    } else if (block.kind === "message") transcript.addMessage(runId, undefined, block.content);
    else transcript.addSlot(runId, block.interruptId);
  }
  for (const step of run.steps) {
    const earlier = previous?.steps.find((item) => item.key === step.key);
    if (step !== earlier) drawStep(transcript, runId, earlier, step, after);
  }
  if (run.finish && run.finish !== previous?.finish) {
    const numbered = run.steps.filter((step) => step.step !== undefined).length;
    transcript.finished(runId, run.finish, numbered);
  }
}

function drawStep(transcript, runId, earlier, step, after) {
  const was = earlier?.streamed;
  if (step.streamed === undefined && was !== undefined) transcript.dropStreaming(runId, step.key);
  else if (step.streamed !== undefined && was === undefined) transcript.stream(runId, step.key, step.streamed);
  else if (step.streamed !== was) transcript.stream(runId, step.key, step.streamed.slice(was.length));
  if (step.message && !earlier?.message) transcript.addMessage(runId, step.key, step.message.content);
  for (const callId of step.calls)
    if (!earlier?.calls.includes(callId)) transcript.addCard(runId, step.key, after.calls[callId]);
}

/**
 * Draws a thread whose events were not recorded from its messages (`GET /api/threads/:id`): each user
 * message opens a block, and the calls, results and answers after it fill that block. Returns the
 * follower's state with what was drawn (no event counted as seen).
 */
export function drawHistory(transcript, view, state) {
  transcript.clear();
  if (view.messages.length === 0) transcript.showEmpty();
  let runId = "history-0";
  let block = 0;
  const put = (event) => {
    const next = applyEvent(state, { ...event, threadId: state.threadId, runId });
    drawChanges(transcript, state, next);
    state = { ...next, applied: undefined };
  };
  for (const message of view.messages) {
    if (message.role === "user") {
      transcript.addUser(message.content);
      runId = `history-${++block}`;
      transcript.run(runId).status.hidden = true;
    } else if (message.role === "assistant") {
      put({ type: "assistant_message", messageId: message.id, content: message.content });
      for (const call of message.toolCalls) put({ ...call, type: "tool_call" });
    } else {
      put({ ...message, type: "tool_result" });
    }
  }
  if (view.interrupt) put({ ...view.interrupt, type: "loop_interrupt" });
  return state;
}
