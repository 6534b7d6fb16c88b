import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { START } from "@langchain/langgraph";
import { loopTurns } from "../graph/turn-queue.js";

/** A wait for a thread's message to be saved in a checkpoint. */
export interface SavedWait {
  /** True once a checkpoint of the thread holding the message is saved; false when cancelled first. */
  readonly saved: Promise<boolean>;
  /** Stops waiting (resolves `saved` with false unless it already resolved). */
  cancel(): void;
}

/** Tells runs when their input is saved. */
export interface CheckpointWatch {
  /**
   * Waits for a checkpoint of the thread's root namespace holding the message (in the thread, or as
   * the run's input, which the first checkpoint of a run holds); start it before the run streams.
   * `onSaved` runs once that checkpoint is saved, and the graph goes on only after it settles
   * (a failure is the caller's to report: the save still returns).
   */
  untilSaved(threadId: string, messageId: string, onSaved?: () => Promise<unknown>): SavedWait;
  /**
   * Shows `beforeSave` each root checkpoint of the thread about to be saved, until the
   * returned function is called; what it writes with the saver's transaction (the events of
   * new messages, see `Storage.appendEventsWithCommit`) commits with that checkpoint.
   */
  beforeSaves(threadId: string, beforeSave: (values: Record<string, unknown>) => void): () => void;
}

interface Waiter {
  messageId: string;
  resolve: (saved: boolean) => void;
  onSaved?: () => Promise<unknown>;
}

const watches = new WeakMap<BaseCheckpointSaver, CheckpointWatch>();

/**
 * Ids of the messages a checkpoint holds: those of the thread, and those of the run's input
 * (the `__start__` channel of the checkpoint LangGraph saves before the step that adds them to
 * the thread). From either, a process that dies resumes with the message (see `planRecover`).
 */
function savedMessageIds(values: Record<string, unknown>): Set<unknown> {
  const ids = new Set<unknown>();
  const input = values[START] as { messages?: unknown } | null | undefined;
  for (const list of [values.messages, input?.messages])
    if (Array.isArray(list)) for (const message of list as Array<{ id?: unknown } | null>) ids.add(message?.id);
  return ids;
}

/**
 * Watches the saver's `put`: once a checkpoint is saved (its write has returned), runs waiting
 * for a message it holds are told at once, with no reads of the state, so a run's first event
 * does not wait for its first step. One watch per saver, whichever runtime asks; a save no run
 * waits for costs one map lookup.
 *
 * Each saved root checkpoint of a run the runtime drives (one that asked for `beforeSaves`)
 * also ends the run's turn (`loopTurns`): with durable saves, a
 * checkpoint ends each superstep, and the graph goes on in a later event-loop iteration, after
 * the runs that were waiting before it. A run whose model and tools never wait on I/O then holds
 * the loop for one superstep, not for its whole run, and requests (sockets are polled between
 * two turns) and other runs' frames wait for a superstep at most. A run is not held before its
 * message is saved: its first event waits for that save alone, and goes out before the graph
 * goes on from it.
 */
export function watchCheckpoints(saver: BaseCheckpointSaver): CheckpointWatch {
  const existing = watches.get(saver);
  if (existing) return existing;
  const waiters = new Map<string, Set<Waiter>>();
  const watchers = new Map<string, (values: Record<string, unknown>) => void>();
  const put = saver.put.bind(saver);
  saver.put = async (config, checkpoint, metadata, newVersions) => {
    const threadId = config.configurable?.thread_id as string | undefined;
    const root = !config.configurable?.checkpoint_ns;
    if (root && threadId !== undefined) watchers.get(threadId)?.(checkpoint.channel_values);
    const saved = await put(config, checkpoint, metadata, newVersions);
    if (!root) return saved;
    const waiting = threadId === undefined ? undefined : waiters.get(threadId);
    if (waiting) {
      const ids = savedMessageIds(checkpoint.channel_values);
      const told: Array<Promise<unknown>> = [];
      for (const waiter of waiting) {
        if (!ids.has(waiter.messageId)) continue;
        waiter.resolve(true);
        if (waiter.onSaved) told.push(waiter.onSaved().catch(() => undefined));
      }
      if (told.length > 0) await Promise.all(told);
      if (waiters.has(threadId!)) return saved;
    }
    // Only a run the runtime drives takes turns: a graph invoked directly (asynchronous saves) would trail its saves.
    if (threadId === undefined || !watchers.has(threadId)) return saved;
    await loopTurns.turn();
    return saved;
  };
  const watch: CheckpointWatch = {
    beforeSaves(threadId, beforeSave) {
      watchers.set(threadId, beforeSave);
      return () => {
        if (watchers.get(threadId) === beforeSave) watchers.delete(threadId);
      };
    },
    untilSaved(threadId, messageId, onSaved) {
      let resolveSaved!: (saved: boolean) => void;
      const saved = new Promise<boolean>((resolve) => (resolveSaved = resolve));
      const waiter: Waiter = {
        messageId,
        onSaved,
        resolve: (value) => {
          const waiting = waiters.get(threadId);
          waiting?.delete(waiter);
          if (waiting?.size === 0) waiters.delete(threadId);
          resolveSaved(value);
        },
      };
      let waiting = waiters.get(threadId);
      if (!waiting) waiters.set(threadId, (waiting = new Set()));
      waiting.add(waiter);
      return { saved, cancel: () => waiter.resolve(false) };
    },
  };
  watches.set(saver, watch);
  return watch;
}
