import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { groupCpuMs } from "../../../bench/langgraph-server.js";
import { realisticPeerRatios, type RealisticResult } from "../../../bench/realistic.js";

const result = (server: RealisticResult["server"], concurrency: number, runsPerSecond: number, cpuMsPerRun?: number) =>
  ({
    server,
    concurrency,
    runs: concurrency,
    durationP50Ms: 0,
    durationP95Ms: 0,
    firstDeltaP95Ms: 0,
    durationP95Ratio: 1,
    firstDeltaP95Ratio: 1,
    runsPerSecond,
    idealRunsPerSecond: 0,
    ...(cpuMsPerRun === undefined ? {} : { cpuMsPerRun }),
  }) satisfies RealisticResult;

describe("the realistic workload's figures", () => {
  it("puts opspilot over the LangGraph API server per burst, skipping one run alone and bursts without a peer", () => {
    const results = [
      result("opspilot", 1, 0.6),
      result("opspilot", 50, 20, 30),
      result("opspilot", 200, 40, 24),
      result("langgraph_api", 50, 5, 60),
      result("no_work", 50, 31),
    ];
    expect(realisticPeerRatios(results)).toEqual([{ concurrency: 50, cpu: 0.5, runsPerSecond: 4 }]);
  });

  it("reads the CPU time of a whole process group from /proc", async () => {
    // A detached child leads its own group; it spins for 300 ms of CPU, then waits to be read.
    const child = spawn(
      process.execPath,
      ["-e", "const t = Date.now(); while (Date.now() - t < 300); setTimeout(() => {}, 5000)"],
      {
        detached: true,
        stdio: "ignore",
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 800));
    try {
      const spent = groupCpuMs(child.pid!);
      expect(spent).toBeGreaterThanOrEqual(200);
      expect(spent).toBeLessThan(5_000);
      expect(groupCpuMs(2 ** 22 + 7)).toBe(0);
    } finally {
      process.kill(-child.pid!, "SIGKILL");
    }
  });
});
