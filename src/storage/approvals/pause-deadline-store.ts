/** When a thread's pause expires, and as whom its run goes on then (the user whose run paused). */
export interface PauseDeadline {
  threadId: string;
  /** The pause; a thread waits on one at a time. */
  interruptId: string;
  /** Epoch ms its approvals expire. */
  expiresAt: number;
  /** Who ran into the pause, and with which role: the run goes on as them once it expired. */
  userId: string;
  role: string;
}

/** The deadlines of waiting pauses, in the database every process shares, so any process can expire them. */
export interface PauseDeadlineStore {
  /** Keeps the thread's pause deadline (one per thread: a later pause replaces it). */
  trackDeadline(deadline: PauseDeadline): Promise<void>;
  /** Deadlines passed by `now`, earliest first, at most `limit`. */
  dueDeadlines(now: number, limit: number): Promise<PauseDeadline[]>;
  /** Forgets the deadline of that pause (not of a later one the thread waits on). */
  forgetDeadline(threadId: string, interruptId: string): Promise<void>;
}
