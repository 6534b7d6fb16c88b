/**
 * The pause (design §4): where a thread stands, the interrupt value `review_calls` builds, and
 * how an answer is checked and applied. The pieces live in `pause/`; this is their one entry.
 */
export { pendingInterrupt, threadStanding, waitingCalls, type ThreadStanding } from "./pause/standing.js";
export { buildInterrupt, pauseExpiry, type PauseExpiry, type PauseSource } from "./pause/interrupt.js";
export { applyResume, checkResume, expiredMessage } from "./pause/resume.js";
export { rejectionMessage } from "./pause/decide.js";
export type {
  AnsweredDecision,
  JudgedDecision,
  ResumeCheck,
  ResumeContext,
  ResumeOutcome,
  ResumeRefusal,
} from "./pause/resume-types.js";
