import { describe, expect, it } from "vitest";
import { DATASET, METRICS, RUNBOOKS, SERVICES } from "../../../src/demo/ops/data/index.js";
import { generateLogs } from "../../../src/demo/ops/data/logs.js";

describe("the embedded demo dataset", () => {
  it("meets the minimum sizes: 10 services, 259 log lines, 18 runbooks, metrics for every service and environment", () => {
    expect(SERVICES.length).toBe(10);
    expect(DATASET.environments.map((environment) => environment.id)).toEqual(["prod", "staging"]);
    expect(DATASET.logs.length).toBe(259);
    expect(RUNBOOKS.length).toBe(18);
    expect(METRICS.length).toBe(20);
  });

  it("gives every service an English and a Chinese name and a previous version that is the release before the current one", () => {
    for (const service of SERVICES) {
      expect(service.nameZh).toMatch(/\p{Script=Han}/u);
      for (const deployment of Object.values(service.deployments)) {
        const index = service.releases.indexOf(deployment.version);
        expect(index).toBeGreaterThanOrEqual(0);
        expect(deployment.previousVersion).toBe(service.releases[index - 1] ?? null);
      }
      for (const dependency of service.dependencies)
        expect(SERVICES.map((candidate) => candidate.id)).toContain(dependency);
    }
  });

  it("numbers runbooks RB-001 to RB-018, each with bilingual titles and concrete steps", () => {
    expect(RUNBOOKS.map((doc) => doc.id)).toEqual(
      Array.from({ length: 18 }, (_, index) => `RB-${String(index + 1).padStart(3, "0")}`),
    );
    for (const doc of RUNBOOKS) {
      expect(doc.titleZh).toMatch(/\p{Script=Han}/u);
      expect(doc.advice.length).toBeGreaterThanOrEqual(2);
    }
  });

  it("generates the same log lines every time", () => {
    expect(generateLogs()).toEqual(DATASET.logs);
  });

  it("holds the payment incident in prod with fixed counts per code", () => {
    const payment = DATASET.logs.filter((line) => line.service === "payment-service" && line.environment === "prod");
    const counts = Object.fromEntries(
      ["PAY-5031", "DB_POOL_EXHAUSTED", "UPSTREAM_RETRY", "DB_SLOW_QUERY", null].map((code) => [
        String(code),
        payment.filter((line) => line.code === code).length,
      ]),
    );
    expect(counts).toEqual({ "PAY-5031": 24, DB_POOL_EXHAUSTED: 9, UPSTREAM_RETRY: 8, DB_SLOW_QUERY: 5, null: 22 });
    expect(payment.filter((line) => /\p{Script=Han}/u.test(line.message)).length).toBe(21);
  });
});
