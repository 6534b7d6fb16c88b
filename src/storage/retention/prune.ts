/** What a prune removed, row counts by table. */
export interface PruneReport {
  /** Threads removed whole: their latest checkpoint was older than the cut-off and no pause waited in it. */
  threads: number;
  checkpoints: number;
  /** Pending writes of removed checkpoints. */
  writes: number;
  /** Channel values no remaining checkpoint refers to. */
  blobs: number;
  events: number;
  results: number;
  runs: number;
  steps: number;
  toolCalls: number;
  decisions: number;
  /** Timeline entries of resolved incidents whose thread was removed whole. */
  incidentLog: number;
  /** Postmortem drafts of the same incidents. */
  postmortems: number;
}

/** Removes what is older than a cut-off, so the database stops growing with every step ever taken. */
export interface Pruner {
  /**
   * Removes checkpoints, events, raw results and records older than `before` (epoch ms). Each
   * thread keeps its latest checkpoint, and so stays readable and resumable, unless the whole
   * thread is older and no pause waits in it; a waiting run's records are kept too.
   */
  prune(before: number): Promise<PruneReport>;
  /**
   * Drops what a thread's current state no longer needs, once its run has ended or paused:
   * every checkpoint but the latest of each namespace, the pending writes of the dropped
   * ones and the channel values only they referred to, in one transaction. The latest
   * checkpoint, its pending writes (a waiting pause, the saved writes of a step a crash
   * interrupted) and its values stay, so the thread reads, resumes and recovers as before;
   * what is lost is time travel to the thread's earlier checkpoints.
   */
  compactThread(threadId: string): Promise<CompactReport>;
}

/** What compacting one thread removed, row counts by table. */
export interface CompactReport {
  checkpoints: number;
  writes: number;
  blobs: number;
}

/** The channel LangGraph writes a pending interrupt to: a thread whose latest checkpoint has one is paused. */
export const INTERRUPT_CHANNEL = "__interrupt__";

/**
 * Threads whose every latest checkpoint (one per namespace: `thread_id`, `ts`, `paused`) is
 * older than the cut-off (ISO time) with no pause waiting: they are removed whole.
 */
export function oldThreads(latest: Array<Record<string, unknown>>, cutoff: string): string[] {
  const recent = new Set<string>();
  const all = new Set<string>();
  for (const row of latest) {
    const threadId = String(row.thread_id);
    all.add(threadId);
    // A checkpoint whose time cannot be read is kept, as a recent one would be.
    if (Number(row.paused) === 1 || row.paused === true || typeof row.ts !== "string" || row.ts >= cutoff)
      recent.add(threadId);
  }
  return [...all].filter((threadId) => !recent.has(threadId));
}

/** A report of nothing removed, to count into. */
export function emptyPruneReport(): PruneReport {
  return {
    threads: 0,
    checkpoints: 0,
    writes: 0,
    blobs: 0,
    events: 0,
    results: 0,
    runs: 0,
    steps: 0,
    toolCalls: 0,
    decisions: 0,
    incidentLog: 0,
    postmortems: 0,
  };
}
