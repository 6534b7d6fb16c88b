/**
 * Hands out turns one per event-loop iteration, first asked first served. Between two turns
 * Node polls its sockets, so when many runs are busy a request or a streamed frame waits for
 * one step of one run, not for one step of every run.
 */
export class TurnQueue {
  private readonly waiting: Array<() => void> = [];
  private pumping = false;

  /** Resolves on this caller's turn, in a later event-loop iteration. */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.pumping) {
        this.pumping = true;
        setImmediate(this.pump);
      }
    });
  }

  private readonly pump = (): void => {
    this.waiting.shift()?.();
    if (this.waiting.length > 0) setImmediate(this.pump);
    else this.pumping = false;
  };
}

/**
 * The process's turns, shared by every run: each model call (`call_model`) queues here, so that
 * with many runs busy each waits for one model call of each other run, never for their whole runs.
 */
export const loopTurns = new TurnQueue();
