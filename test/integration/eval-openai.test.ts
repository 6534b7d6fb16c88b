import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEvalCli } from "../../src/eval/cli.js";
import { EvalReportSchema } from "../../src/eval/report/report.js";
import {
  startOpenAIServer,
  type OpenAITestServer,
  type RecordedRequest,
  type ScriptedReply,
} from "../fixtures/openai-server.js";

const SCENARIOS = `
scenarios:
  - id: seed
    question: 看看支付服务最近报错，顺便对照一下文档里的处理建议
    pauses:
      - { type: params_required, tool: search_logs, action: approve, params: { environment: prod } }
    expect:
      tools: { required: [search_resource, search_logs, search_docs], order: [[search_resource, search_logs]] }
      args:
        - { tool: search_logs, match: { service: payment-service, environment: prod } }
      steps: { max: 4 }
      evidence: [PAY-5031, DB_POOL_EXHAUSTED, RB-003, 24]
  - id: reject
    question: Restart the payment service in prod
    pauses:
      - { type: confirm_risky, tool: restart_service, action: reject, message: not now }
    expect:
      tools: { required: [restart_service] }
      steps: { max: 3 }
      fabrication: { forbid: [recovering] }
`;

/** A model behind the wire: decides each reply from the conversation the request carries. */
function reply(request: RecordedRequest): ScriptedReply {
  const messages = request.body.messages;
  const lastUser = messages.findLastIndex((message) => message.role === "user");
  const question = String(messages[lastUser]?.content ?? "");
  const results = messages.slice(lastUser + 1).filter((message) => message.role === "tool").length;
  const usage = { prompt_tokens: 1000, completion_tokens: 50 };
  if (question.includes("支付")) {
    if (results === 0)
      return {
        usage,
        toolCalls: [
          { name: "search_resource", arguments: '{"query":"支付"}' },
          { name: "search_docs", arguments: '{"query":"PAY-5031 DB_POOL_EXHAUSTED"}' },
        ],
      };
    if (results === 2)
      return {
        usage,
        toolCalls: [{ name: "search_logs", arguments: '{"service":"payment-service","level":"ERROR"}' }],
      };
    return { usage, content: "payment-service（prod）：PAY-5031 共 24 次，DB_POOL_EXHAUSTED 9 次；按 RB-003 处理。" };
  }
  if (results === 0)
    return {
      usage,
      toolCalls: [{ name: "restart_service", arguments: '{"service":"payment-service","environment":"prod"}' }],
    };
  return { usage, content: "I did not restart payment-service: you rejected it (not now)." };
}

let server: OpenAITestServer;
beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(async () => {
  await server.close();
});

describe("npm run eval against an OpenAI-compatible endpoint", () => {
  it("runs each scenario through the provider path, every request well paired, and scores it", async () => {
    const folder = mkdtempSync(join(tmpdir(), "opspilot-eval-openai-"));
    const file = join(folder, "scenarios.yaml");
    writeFileSync(file, SCENARIOS);
    // Seed: 3 model requests (a pause between the 2nd and the 3rd); reject: 2.
    server.enqueue(...Array.from({ length: 5 }, () => reply));
    let stdout = "";
    let stderr = "";
    const code = await runEvalCli({
      argv: ["--model", "openai:mock", "--scenarios", file, "--out", join(folder, "out"), "--concurrency", "1"],
      variables: {
        OPENAI_BASE_URL: server.baseURL,
        OPSPILOT_MODEL_MAX_RETRIES: "0",
        OPSPILOT_PRICE_INPUT_PER_MTOK: "2",
        OPSPILOT_PRICE_OUTPUT_PER_MTOK: "10",
      },
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    });
    expect(stderr).toBe("scenario 1 of 2: seed 1.00\nscenario 2 of 2: reject 1.00\n");
    expect(code).toBe(0);
    expect(server.pending()).toBe(0);
    expect(server.requests.map((request) => [request.status, request.violation, request.body.model])).toEqual(
      Array.from({ length: 5 }, () => [200, undefined, "mock"]),
    );
    const report = EvalReportSchema.parse(JSON.parse(readFileSync(join(folder, "out", "report.json"), "utf8")));
    expect(report.model).toBe("openai:mock");
    expect(report.summary).toEqual({ total: 2, passed: 2, score: 1 });
    const [seed, reject] = report.scenarios;
    // Tokens and cost come from the endpoint's usage at the configured prices: 1000 in + 50 out per request.
    expect(seed).toMatchObject({ id: "seed", steps: 3, tokens: 3150, costUsd: 0.0075 });
    expect(reject).toMatchObject({ id: "reject", steps: 2, tokens: 2100, costUsd: 0.005 });
    expect(stdout).toContain("model openai:mock: 2 of 2 scenarios passed, score 1.000");
  });
});
