import { monitorEventLoopDelay } from "node:perf_hooks";
import { createInterface } from "node:readline";

/**
 * The load benchmark's diagnostics, from a server's child process: each `loop-delay` line on
 * stdin is answered on stdout with the event-loop delay (p99 and max, ms) since the last one.
 * `load.ts` asks before and after each level. Each `cpu` line is answered with the process's
 * CPU time (user + system, ms) since the last one.
 */
export function answerLoopDelay(): void {
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  // Enabled at the first ask (the load benchmark asks before each level): a 1 ms timer costs CPU the realistic workload measures.
  let enabled = false;
  let cpu = process.cpuUsage();
  createInterface({ input: process.stdin }).on("line", (line) => {
    if (line === "cpu") {
      const spent = process.cpuUsage(cpu);
      cpu = process.cpuUsage();
      process.stdout.write(`${JSON.stringify({ cpuMs: (spent.user + spent.system) / 1000 })}\n`);
      return;
    }
    if (line !== "loop-delay") return;
    if (!enabled) {
      enabled = true;
      loopDelay.enable();
    }
    process.stdout.write(`${JSON.stringify({ p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 })}\n`);
    loopDelay.reset();
  });
}
