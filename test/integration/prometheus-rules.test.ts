import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { DemoChatModel } from "../../src/demo/model/demo-model.js";
import { oldestPauseSince, RunMetrics } from "../../src/service/observability/metrics.js";
import { startServer } from "../../src/server/start.js";
import { writeBackFailuresCounter } from "../../src/service/observability/write-back-failures.js";
import { ApiClient } from "../fixtures/http.js";

/** Debian's prometheus package ships promtool; `.ci/run` installs it. */
const PROMTOOL = "/usr/bin/promtool";
const hasPromtool = existsSync(PROMTOOL);
if (!hasPromtool) console.warn(`promtool tests skipped: ${PROMTOOL} is missing (CI installs Debian's prometheus)`);

const RULES = join(import.meta.dirname, "../../deploy/prometheus");

function promtool(args: string[], input?: string) {
  const run = spawnSync(PROMTOOL, args, { input, encoding: "utf8", cwd: RULES, timeout: 30_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe.skipIf(!hasPromtool)("opspilot and Prometheus's own checks", { timeout: 60_000 }, () => {
  it("ships alert rules that promtool checks and whose unit tests pass", () => {
    const checked = promtool(["check", "rules", "opspilot-rules.yml"]);
    expect(checked.output).toContain("SUCCESS: 9 rules found");
    expect(checked.status).toBe(0);
    const tested = promtool(["test", "rules", "opspilot-rules.test.yml"]);
    expect(tested.output).toContain("SUCCESS");
    expect(tested.status).toBe(0);
  });

  it("serves /metrics that promtool check metrics passes, with the series the rules read", async () => {
    const directory = mkdtempSync(join(tmpdir(), "opspilot-promtool-"));
    const metrics = new RunMetrics({ processMetrics: true });
    writeBackFailuresCounter(metrics.registry);
    const app = createApp({
      env: loadEnv({ OPSPILOT_QUOTA_RUNS_PER_DAY: "2" }),
      dbPath: join(directory, "opspilot.sqlite"),
      model: new DemoChatModel(),
      onEvent: (event) => metrics.observe(event),
    });
    metrics.watch({
      health: () => ({ servers: [{ name: "prometheus", status: "down" }] }),
      oldestPauseSince: () => oldestPauseSince(app.runtime),
    });
    const server = await startServer({ runtime: app.runtime, host: "127.0.0.1", port: 0, metrics });
    try {
      const client = new ApiClient(server.url);
      // A run that reads and answers, one that pauses on the restart, then a third the quota refuses.
      await client.run(await client.createThread(), "看看支付服务最近报错");
      const paused = await client.createThread();
      const events = await client.run(paused, "restart payment service in staging");
      expect(events.map((event) => event.type)).toContain("loop_interrupt");
      const refused = await client.request("POST", `/api/threads/${await client.createThread()}/runs`, {
        message: "hello",
      });
      expect(refused.status).toBe(429);
      await new Promise((resolve) => setTimeout(resolve, 1_100));

      const text = await (await fetch(`${server.url}/metrics`)).text();
      const linted = promtool(["check", "metrics"], text);
      expect(linted.output).toBe("");
      expect(linted.status).toBe(0);
      expect(text).toContain('opspilot_mcp_server_up{server="prometheus"} 0');
      expect(text).toContain('opspilot_quota_refusals_total{quota="runs"} 1');
      expect(text).toContain('opspilot_writeback_failures_total{target="pagerduty",update="summary"} 0');
      expect(text).toMatch(/^opspilot_tool_calls_total\{tool="\w+",outcome="ok"\} [1-9]/m);
      const age = Number(/^opspilot_oldest_pause_age_seconds (\S+)$/m.exec(text)?.[1]);
      expect(age).toBeGreaterThanOrEqual(1);
      expect(age).toBeLessThan(60);
    } finally {
      await server.close();
      await app.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
