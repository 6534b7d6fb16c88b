import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { realisticRatios } from "../../../bench/gate.js";
import { groupCpuMs } from "../../../bench/langgraph-server.js";
import { realisticPeerLine, realisticPeerRatios, type RealisticResult } from "../../../bench/realistic.js";

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

  it("puts the stack floor over the LangGraph API server and opspilot over the floor, with or without that server", () => {
    const results = [
      result("opspilot", 50, 20, 30),
      result("opspilot", 200, 40, 24),
      result("langgraph_api", 50, 5, 60),
      result("stack_floor", 50, 22, 25),
      result("stack_floor", 200, 44, 20),
    ];
    expect(realisticPeerRatios(results)).toEqual([
      { concurrency: 50, cpu: 0.5, runsPerSecond: 4, floorCpu: 0.42, cpuOverFloor: 1.2 },
      { concurrency: 200, cpuOverFloor: 1.2 },
    ]);
    expect(realisticPeerLine(realisticPeerRatios(results)[0]!)).toBe(
      "50 at once, opspilot / LangGraph API server: CPU per run 0.50×; runs per second 4.00×; stack floor / LangGraph API server: CPU per run 0.42×; opspilot / stack floor: CPU per run 1.20×",
    );
  });

  it("gates opspilot's p95 run over one alone and its CPU per run over the stack floor's at 50 at once, and only what was measured", () => {
    const results = [
      { ...result("opspilot", 50, 20, 30), durationP95Ratio: 1.8 },
      result("opspilot", 200, 40, 24),
      { ...result("stack_floor", 50, 22, 24), durationP95Ratio: 1.5 },
      result("stack_floor", 200, 44, 20),
    ];
    expect(realisticRatios(results)).toEqual({
      "realistic: p95 run / alone at 50 at once, opspilot / stack floor": 1.2,
      "realistic: CPU per run, opspilot / stack floor, 50 at once": 1.25,
    });
    const withoutCpu = results.map(({ cpuMsPerRun: _cpu, ...rest }) => rest);
    expect(realisticRatios(withoutCpu)).toEqual({
      "realistic: p95 run / alone at 50 at once, opspilot / stack floor": 1.2,
    });
    expect(realisticRatios(results.filter((entry) => entry.server === "opspilot"))).toEqual({});
  });

  it("reads the CPU time of a whole process group from /proc", async () => {
    // A detached child leads its own group; it spins until it has spent 300 ms of CPU (not of
    // wall time, which a loaded machine stretches), says so, then waits to be read.
    const spin =
      "const busy = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };" +
      "const start = busy(); while (busy() - start < 300); console.log('spun'); setTimeout(() => {}, 20000)";
    const child = spawn(process.execPath, ["-e", spin], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("spun") && resolve());
      child.once("exit", (code) => reject(new Error(`the spinning child exited early (${code})`)));
    });
    try {
      const spent = groupCpuMs(child.pid!);
      expect(spent).toBeGreaterThanOrEqual(200);
      expect(spent).toBeLessThan(5_000);
      expect(groupCpuMs(2 ** 22 + 7)).toBe(0);
    } finally {
      process.kill(-child.pid!, "SIGKILL");
    }
  }, 20_000);
});
