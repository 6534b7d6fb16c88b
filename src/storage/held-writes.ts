/** The key of a thread's namespace in a saver's maps. */
export const threadKey = (threadId: string, namespace: string) => `${threadId}\u0000${namespace}`;

/**
 * How long pending writes wait for the checkpoint that folds them in before they commit on
 * their own. A checkpoint follows its step's writes at once (durability "sync") or after the
 * checkpoints queued before it ("async"): within a few ms either way.
 */
export const HELD_WRITES_MS = 50;

/** A task's writes waiting for the checkpoint after them. */
export interface HeldTask {
  /** The checkpoint the writes were made against. */
  checkpointId: string;
  /** Epoch ms the writes came. */
  heldAt: number;
}

/**
 * Tasks' pending writes held by thread and namespace, in the order they came, until the
 * checkpoint that follows them takes them (`takeBefore`). Those no checkpoint took within
 * `HELD_WRITES_MS` go to `saveAlone`. The timer holds the process open: held writes are not
 * lost to an exit.
 */
export class HeldTasks<T extends HeldTask> {
  private readonly byKey = new Map<string, T[]>();

  private timer: NodeJS.Timeout | undefined;

  /**
   * @param saveAlone saves a key's held writes on their own (it takes them with `take`)
   * @param isOpen false once the saver's connection is closed: nothing is saved, and the timer stops
   */
  constructor(
    private readonly saveAlone: (key: string) => void,
    private readonly isOpen: () => boolean = () => true,
  ) {}

  /** Holds a task's writes, and saves them on their own if no checkpoint takes them in time. */
  hold(key: string, task: T): void {
    const waiting = this.byKey.get(key);
    if (waiting) waiting.push(task);
    else this.byKey.set(key, [task]);
    this.schedule();
  }

  /** Takes all the held tasks of `key`. */
  take(key: string): T[] {
    const held = this.byKey.get(key) ?? [];
    this.byKey.delete(key);
    return held;
  }

  /**
   * Takes the tasks of `key` whose writes were made against a checkpoint older than
   * `checkpointId`, for that checkpoint to fold in; writes to it or a newer one (a put that
   * comes late, with asynchronous durability) stay held for the checkpoint after them.
   */
  takeBefore(key: string, checkpointId: string): T[] {
    const folded: T[] = [];
    const kept: T[] = [];
    for (const task of this.take(key)) (task.checkpointId < checkpointId ? folded : kept).push(task);
    if (kept.length > 0) this.byKey.set(key, kept);
    return folded;
  }

  /** The keys holding writes of a thread's namespaces (of every thread, without one). */
  keysOf(threadId: string | undefined): string[] {
    const prefix = threadId === undefined ? "" : threadKey(threadId, "");
    return [...this.byKey.keys()].filter((key) => key.startsWith(prefix));
  }

  /** Stops the timer (the held writes stay, for `take`). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.isOpen()) return;
      const due = Date.now() - HELD_WRITES_MS;
      for (const [key, held] of [...this.byKey]) if (held[0]!.heldAt <= due) this.saveAlone(key);
      if (this.byKey.size > 0) this.schedule();
    }, HELD_WRITES_MS);
  }
}
