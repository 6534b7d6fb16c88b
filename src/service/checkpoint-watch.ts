import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";

/** A wait for a thread's message to be saved in a checkpoint. */
export interface SavedWait {
  /** True once a checkpoint of the thread holding the message is saved; false when cancelled first. */
  readonly saved: Promise<boolean>;
  /** Stops waiting (resolves `saved` with false unless it already resolved). */
  cancel(): void;
}

/** Tells runs when their input is saved. */
export interface CheckpointWatch {
  /** Waits for a checkpoint of the thread's root namespace holding the message; start it before the run streams. */
  untilSaved(threadId: string, messageId: string): SavedWait;
}

interface Waiter {
  messageId: string;
  resolve: (saved: boolean) => void;
}

const watches = new WeakMap<BaseCheckpointSaver, CheckpointWatch>();

/**
 * Watches the saver's `put`: once a checkpoint is saved (its write has returned), runs waiting
 * for a message it holds are told at once, with no reads of the state, so a run's first event
 * does not wait for its first step. One watch per saver, whichever runtime asks; a save no run
 * waits for costs one map lookup.
 */
export function watchCheckpoints(saver: BaseCheckpointSaver): CheckpointWatch {
  const existing = watches.get(saver);
  if (existing) return existing;
  const waiters = new Map<string, Set<Waiter>>();
  const put = saver.put.bind(saver);
  saver.put = async (config, checkpoint, metadata, newVersions) => {
    const saved = await put(config, checkpoint, metadata, newVersions);
    const threadId = config.configurable?.thread_id as string | undefined;
    const waiting = threadId === undefined ? undefined : waiters.get(threadId);
    if (waiting && !config.configurable?.checkpoint_ns) {
      const messages = checkpoint.channel_values.messages;
      if (Array.isArray(messages)) {
        const ids = new Set(messages.map((message: { id?: unknown } | null) => message?.id));
        for (const waiter of waiting) if (ids.has(waiter.messageId)) waiter.resolve(true);
      }
    }
    return saved;
  };
  const watch: CheckpointWatch = {
    untilSaved(threadId, messageId) {
      let resolveSaved!: (saved: boolean) => void;
      const saved = new Promise<boolean>((resolve) => (resolveSaved = resolve));
      const waiter: Waiter = {
        messageId,
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
