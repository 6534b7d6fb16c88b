// The run follower: the state of the conversation on the page, folded from the run stream's events
// (design §6) whatever their order, and however often a replay or a resumed stream sends them again.
// Pure and without the DOM: `follow(state, event)` returns a new state and never changes the old one.

/** The recorded event types the page follows; a unit test holds them equal to the contract's (`RunEventSchema`). */
export const RECORDED_EVENT_TYPES = Object.freeze([
  "run_started",
  "tool_call",
  "tool_result",
  "assistant_message",
  "loop_interrupt",
  "run_finished",
]);

/** The live, unrecorded event type: a fragment of the answer a model turn is writing (`AssistantDeltaSchema`). */
export const DELTA_EVENT_TYPE = "assistant_delta";

/**
 * A thread with nothing shown yet. The state's fields: `seen` the sequence numbers applied, `lastSeq`
 * the highest; `runs` in the order their first event came, each with its steps (one per model turn,
 * `legacy-<n>` for turns recorded before they were numbered) and `blocks` (steps, messages outside a
 * turn and pauses, in the order they appeared); `calls` by call id, with their results; `pauses` every
 * pause asked; `waiting` the pause that waits for an answer; `finished` whether the last run started
 * has ended; `applied` the event the last step took in (undefined when it passed it over).
 */
export function startConversation(threadId) {
  return {
    threadId,
    seen: new Set(),
    lastSeq: 0,
    runs: [],
    calls: {},
    pauses: [],
    waiting: undefined,
    finished: false,
    applied: undefined,
  };
}

/**
 * Takes in one streamed event: another thread's event, a recorded event already seen (by its per-thread
 * sequence number) or one of a type the page does not know changes nothing but the cursor past it.
 */
export function follow(state, event) {
  if (event?.threadId === undefined || event.threadId !== state.threadId) return passed(state);
  if (event.type === DELTA_EVENT_TYPE) return streamed(state, event);
  if (!Number.isInteger(event.seq) || state.seen.has(event.seq)) return passed(state);
  const counted = { ...state, seen: new Set(state.seen).add(event.seq), lastSeq: Math.max(state.lastSeq, event.seq) };
  if (!RECORDED_EVENT_TYPES.includes(event.type)) return passed(counted);
  return applyEvent(counted, event);
}

/** Records what the thread view says of its pending pause (undefined: none waits), placing it when no event did. */
export function withPendingPause(state, interrupt) {
  if (!interrupt) return { ...state, waiting: undefined, applied: undefined };
  if (state.pauses.some((pause) => pause.interrupt.interruptId === interrupt.interruptId))
    return { ...state, waiting: interrupt, applied: undefined };
  const runId = state.runs.at(-1)?.runId ?? "pending";
  return { ...applyEvent(state, { ...interrupt, type: "loop_interrupt", runId }), applied: undefined };
}

/** Marks the start of a stream: whether it saw its run end is known from here on. */
export function expectRunEnd(state) {
  return { ...state, finished: false, applied: undefined };
}

/** The result recorded for a call, if any. */
export function resultOf(state, callId) {
  return state.calls[callId]?.result;
}

/**
 * Applies an event without the sequence-number check: what `follow` does with a new recorded event,
 * and how the page places a thread view's messages, which carry none.
 */
export function applyEvent(state, event) {
  const next = { ...state, applied: event };
  switch (event.type) {
    case "run_started":
      return {
        ...withRun(next, event.runId, (run) => ({ ...run, state: "running" })),
        finished: false,
        waiting: undefined,
      };
    case "tool_call":
      return state.calls[event.callId] ? next : proposeCall(next, event);
    case "tool_result": {
      const closed = withRun(next, event.runId, closeStep);
      const known = closed.calls[event.callId] ? closed : proposeCall(closed, { ...event, args: {} });
      const call = known.calls[event.callId];
      return withCall(known, { ...call, state: event.ok ? "ok" : "error", result: event });
    }
    case "assistant_message":
      return addMessage(next, event);
    case "loop_interrupt":
      return pause(next, event);
    case "run_finished": {
      const { stopReason, steps, durationMs, tokens, costUsd } = event;
      const finish = { stopReason, steps, durationMs, tokens, costUsd };
      const ended = withRun(next, event.runId, (run) => ({
        ...dropStreamed(closeStep(run)),
        state: stopReason,
        finish,
      }));
      return { ...ended, finished: true };
    }
    default:
      return passed(state);
  }
}

const passed = (state) => (state.applied === undefined ? state : { ...state, applied: undefined });

/** A fragment of a turn's answer: kept until the turn's message (or its calls) supersede it. */
function streamed(state, event) {
  return withStep({ ...state, applied: event }, event.runId, event.step, (step) =>
    step.message ? step : { ...step, streamed: (step.streamed ?? "") + event.text },
  );
}

function proposeCall(state, event) {
  const { callId, runId, tool, args, model } = event;
  const n = model?.step;
  let next = withRun(state, runId, (run) => run);
  // Text a turn streamed that did not become a message was the model thinking aloud.
  if (n !== undefined)
    next = withStep(next, runId, n, (step) => (step.message ? step : { ...step, streamed: undefined }));
  const run = runOf(next, runId);
  const key = n ?? run.openStep ?? `legacy-${run.steps.filter((step) => step.step === undefined).length + 1}`;
  next = withStep(next, runId, key, (step) => ({ ...step, calls: [...step.calls, callId] }));
  next = withRun(next, runId, (open) => ({ ...open, openStep: key }));
  return withCall(next, { callId, runId, step: key, tool, args, state: "proposed" });
}

function addMessage(state, event) {
  const { runId, messageId, content, model } = event;
  const n = model?.step;
  let next = withRun(state, runId, (run) => {
    const closed = closeStep(run);
    return n === undefined ? closed : dropStreamed(closed, (step) => step.key === n);
  });
  if (!content) return next;
  if (n === undefined)
    return withRun(next, runId, (run) => ({
      ...run,
      blocks: [...run.blocks, { kind: "message", messageId, content }],
    }));
  next = withStep(next, runId, n, (step) => ({ ...step, streamed: undefined, message: { messageId, content } }));
  // Calls of the same turn follow the text into its step.
  return withRun(next, runId, (run) => ({ ...run, openStep: n }));
}

function pause(state, event) {
  let next = withRun(state, event.runId, (run) => dropStreamed(closeStep(run)));
  for (const call of event.calls) {
    if (!next.calls[call.callId]) next = proposeCall(next, { ...call, runId: event.runId, model: undefined });
    next = withCall(next, { ...next.calls[call.callId], state: "waiting", risk: call.risk });
  }
  // A pause asked again (its answer was refused) keeps one place: the newest.
  const others = (blocks) =>
    blocks.filter((block) => block.kind !== "pause" || block.interruptId !== event.interruptId);
  next = {
    ...next,
    runs: next.runs.map((run) =>
      run.blocks.some((block) => block.interruptId === event.interruptId)
        ? { ...run, blocks: others(run.blocks) }
        : run,
    ),
  };
  next = withRun(next, event.runId, (run) => ({
    ...run,
    blocks: [...run.blocks, { kind: "pause", interruptId: event.interruptId }],
  }));
  const pauses = next.pauses.filter((item) => item.interrupt.interruptId !== event.interruptId);
  return { ...next, pauses: [...pauses, { runId: event.runId, interrupt: event }], waiting: event };
}

function runOf(state, runId) {
  return state.runs.find((run) => run.runId === runId);
}

/** The state with run `runId` (created on first use) replaced by `change(run)`. */
function withRun(state, runId, change) {
  const run = runOf(state, runId);
  if (run) return { ...state, runs: state.runs.map((item) => (item === run ? change(run) : item)) };
  const created = { runId, state: undefined, steps: [], blocks: [], openStep: undefined, finish: undefined };
  return { ...state, runs: [...state.runs, change(created)] };
}

/** The state with step `key` of run `runId` (created on first use, numbered when `key` is) replaced by `change(step)`. */
function withStep(state, runId, key, change) {
  return withRun(state, runId, (run) => {
    const step = run.steps.find((item) => item.key === key);
    if (step) return { ...run, steps: run.steps.map((item) => (item === step ? change(step) : item)) };
    const created = {
      key,
      step: typeof key === "number" ? key : undefined,
      streamed: undefined,
      message: undefined,
      calls: [],
    };
    return { ...run, steps: [...run.steps, change(created)], blocks: [...run.blocks, { kind: "step", key }] };
  });
}

function withCall(state, call) {
  return { ...state, calls: { ...state.calls, [call.callId]: call } };
}

const closeStep = (run) => (run.openStep === undefined ? run : { ...run, openStep: undefined });

/** Drops the text streamed by the run's steps (those `which` picks) that never became a message. */
function dropStreamed(run, which = () => true) {
  if (!run.steps.some((step) => step.streamed !== undefined && which(step))) return run;
  return {
    ...run,
    steps: run.steps.map((step) =>
      step.streamed !== undefined && which(step) ? { ...step, streamed: undefined } : step,
    ),
  };
}
