import { describe, expect, it } from "vitest";
import { factsOf } from "../../../src/context/memory.js";
import { demoTools, makeStore, runTool } from "./helpers.js";

/** The facts working memory keeps of a demo tool's real result. */
async function factsOfRun(name: string, args: Record<string, unknown>): Promise<string[]> {
  const store = makeStore();
  return factsOf(demoTools(store).get(name), await runTool(store, name, args));
}

describe("the demo tools' own summaries for working memory", () => {
  it("search_logs keeps the count and each error code with its count, level, last time and sample", async () => {
    const facts = await factsOfRun("search_logs", { service: "支付服务", environment: "prod", level: "ERROR" });
    expect(facts[0]).toBe("payment-service prod: 33 matching line(s)");
    expect(facts[1]).toMatch(/^PAY-5031 ×24 \(ERROR, last 2025-06-11T07:58:25\.000Z\): /);
    expect(facts[2]).toMatch(/^DB_POOL_EXHAUSTED ×9 \(ERROR, last 2025-06-11T07:57:40\.000Z\): /);
    expect(facts).toHaveLength(3);
  });

  it("search_docs keeps each runbook's id, title and first step", async () => {
    const facts = await factsOfRun("search_docs", { query: "PAY-5031 DB_POOL_EXHAUSTED" });
    expect(facts.length).toBeGreaterThan(0);
    expect(facts[0]).toMatch(/^RB-\d{3} .+: .+/);
    expect(await factsOfRun("search_docs", { query: "qqqqxyzzy" })).toEqual(['no runbook matched "qqqqxyzzy"']);
  });

  it("search_resource keeps each hit's id, kind, owner and status", async () => {
    const facts = await factsOfRun("search_resource", { query: "支付" });
    expect(facts[0]).toMatch(/^payment-service \(service, owner [a-z-]+\): prod: \w+, staging: \w+$/);
  });

  it("get_service_metrics, restart_service and rollback_deploy keep state, version and what was done", async () => {
    const metrics = await factsOfRun("get_service_metrics", { service: "payment-service", environment: "prod" });
    expect(metrics[0]).toMatch(/^payment-service prod: \w+, version \S+/);
    expect(metrics[1]).toMatch(/^error rate [\d.]+%, p95 \d+ ms, [\d.]+ rps, restarts \d+$/);
    const restart = await factsOfRun("restart_service", { service: "payment-service", environment: "staging" });
    expect(restart[0]).toMatch(
      /^restarted payment-service staging at \S+ \(restart 1\): \w+ → recovering, version \S+$/,
    );
    const rollback = await factsOfRun("rollback_deploy", { service: "payment-service", environment: "staging" });
    expect(rollback[0]).toMatch(/^rolled back payment-service staging from \S+ to \S+ at \S+: \w+ → recovering$/);
  });
});
