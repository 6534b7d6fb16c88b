/**
 * A single-consumer async queue: the run pushes events whether or not anyone reads, so a
 * client that disconnects never stalls the run.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private closed = false;

  constructor(
    /** Sees every pushed value, whether or not anyone reads the stream. */
    private readonly observer?: (value: T) => void,
  ) {}

  /** Queues a value for the consumer. */
  push(value: T): void {
    if (this.closed) return;
    this.observer?.(value);
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value, done: false });
    } else this.buffer.push(value);
  }

  /** Ends the stream after the queued values. */
  close(): void {
    this.closed = true;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: undefined as never, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.buffer.length > 0) return Promise.resolve({ value: this.buffer.shift()!, done: false });
        if (this.closed) return Promise.resolve({ value: undefined as never, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      return: () => {
        // The consumer left: drop what is queued; the producer keeps running and recording.
        this.buffer.length = 0;
        return Promise.resolve({ value: undefined as never, done: true });
      },
    };
  }
}
