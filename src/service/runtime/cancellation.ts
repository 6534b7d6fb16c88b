import type { CancelSignals } from "../../graph/context.js";

/** Per-thread abort controllers of the runs in this process; cancelling aborts the run's model call and tools. */
export class CancellationRegistry implements CancelSignals {
  private readonly controllers = new Map<string, AbortController>();
  private static readonly never = new AbortController().signal;

  /** Starts tracking a run of the thread and returns its controller. */
  begin(threadId: string): AbortController {
    const controller = new AbortController();
    this.controllers.set(threadId, controller);
    return controller;
  }

  /** Stops tracking the thread's run (only if `controller` is still the current one). */
  end(threadId: string, controller: AbortController): void {
    if (this.controllers.get(threadId) === controller) this.controllers.delete(threadId);
  }

  /** The signal of the thread's current run; a never-aborted signal when none is tracked. */
  signalFor(threadId: string): AbortSignal {
    return this.controllers.get(threadId)?.signal ?? CancellationRegistry.never;
  }

  /** Aborts the thread's run; false when this process runs nothing for it. */
  cancel(threadId: string): boolean {
    const controller = this.controllers.get(threadId);
    if (!controller || controller.signal.aborted) return false;
    controller.abort(new Error("cancelled by the user"));
    return true;
  }
}
