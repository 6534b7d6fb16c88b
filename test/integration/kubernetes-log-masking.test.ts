/* eslint-disable @typescript-eslint/no-explicit-any -- the tool's result is JSON whose shape the test asserts */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boundObservation } from "../../src/execution/sanitize.js";
import { defaultScenario } from "../fixtures/kubernetes-scenario.js";
import { startKubernetesStandin, type KubernetesStandin } from "../fixtures/kubernetes-standin.js";
import { callTool, kubernetesSource } from "../fixtures/kubernetes-tools.js";

const pad = (i: number) => String(i).padStart(4, "0");
/** Canary secrets, different on every line; the rest of the line is the same. */
const canaries = (i: number) => ({
  aws: `AKIA${pad(i)}CANARYQWERTY`,
  openai: `sk-canary${pad(i)}abcdefghijklmnop`,
  jwt: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5hcnki${pad(i)}.c2lnbmF0dXJlY2FuYXJ5${pad(i)}`,
});
const LINES = Array.from({ length: 100 }, (_, i) => {
  const { aws, openai, jwt } = canaries(i);
  return `upstream auth rejected creds ${aws} client ${openai} session ${jwt}`;
});

let standin: KubernetesStandin;

beforeAll(async () => {
  standin = await startKubernetesStandin({ scenario: defaultScenario({ extraLogLines: LINES }) });
});
afterAll(() => standin.close());

describe("the pod logs tool masks each line before folding it into patterns", () => {
  it("never shows a canary secret, and 100 lines that differ only by their secrets fold into one pattern", async () => {
    const source = await kubernetesSource(standin);
    const result = await callTool(source, "kubernetes_pod_logs", {
      namespace: "payments",
      pod: "payment-service-7d4b9c6f8-x2k9p",
      previous: true,
      tailLines: 500,
    });
    const folded = result.patterns.filter((p: any) => p.pattern.startsWith("upstream auth rejected"));
    expect(folded).toEqual([
      {
        pattern: "upstream auth rejected creds [key masked] client [key masked] session [token masked]",
        count: 100,
        example: "upstream auth rejected creds [key masked] client [key masked] session [token masked]",
      },
    ]);
    const observation = boundObservation({ ok: true, data: result }, 1_000_000).content;
    const raw = JSON.stringify(result);
    for (const text of [raw, observation]) {
      expect(text).not.toMatch(/canary|CANARY|AKIA|sk-|eyJ/);
    }
    expect(observation).toContain("[key masked]");
  });

  it("filters on the masked text, so a filter cannot tell whether a secret is in the logs", async () => {
    const source = await kubernetesSource(standin);
    const result = await callTool(source, "kubernetes_pod_logs", {
      namespace: "payments",
      pod: "payment-service-7d4b9c6f8-x2k9p",
      previous: true,
      tailLines: 500,
      filter: "AKIA0007",
    });
    expect(result).toMatchObject({ lineCount: 0, lines: [] });
  });
});
