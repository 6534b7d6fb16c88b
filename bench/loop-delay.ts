import { monitorEventLoopDelay } from "node:perf_hooks";
import { createInterface } from "node:readline";

/**
 * The load benchmark's diagnostics, from a server's child process: each `loop-delay` line on
 * stdin is answered on stdout with the event-loop delay (p99 and max, ms) since the last one.
 * `load.ts` asks before and after each level.
 */
export function answerLoopDelay(): void {
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  createInterface({ input: process.stdin }).on("line", (line) => {
    if (line !== "loop-delay") return;
    process.stdout.write(`${JSON.stringify({ p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 })}\n`);
    loopDelay.reset();
  });
}
