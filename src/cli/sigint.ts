/** Something that emits SIGINT (the process, in production). */
export interface SignalSource {
  on(event: "SIGINT", listener: () => void): unknown;
  off(event: "SIGINT", listener: () => void): unknown;
}

/**
 * Routes Ctrl-C to whoever is active: a run (cancels it), a prompt (leaves the pause
 * waiting), or nothing (quits). The latest pushed handler wins.
 */
export class SigintRouter {
  private readonly handlers: Array<() => void> = [];
  private readonly listener = () => this.fire();
  private source: SignalSource | undefined;

  /** @param whenIdle what Ctrl-C does when no run or prompt is active. */
  constructor(private readonly whenIdle: () => void) {}

  /** Starts listening to `source`. */
  attach(source: SignalSource): void {
    this.source = source;
    source.on("SIGINT", this.listener);
  }

  /** Stops listening. */
  detach(): void {
    this.source?.off("SIGINT", this.listener);
    this.source = undefined;
  }

  /** Handles one Ctrl-C (also called by the prompter on a raw-mode terminal). */
  fire(): void {
    const handler = this.handlers[this.handlers.length - 1];
    if (handler) handler();
    else this.whenIdle();
  }

  /** Makes `handler` the active one until the returned function is called. */
  push(handler: () => void): () => void {
    this.handlers.push(handler);
    return () => {
      const at = this.handlers.lastIndexOf(handler);
      if (at >= 0) this.handlers.splice(at, 1);
    };
  }
}
