import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import { useDemoApp } from "../fixtures/demo-app.js";

const demo = useDemoApp("opspilot-demo-prose-");

async function ask(message: string, threadId?: string) {
  const { threadId: thread, events } = await demo.ask(message, threadId);
  const answer = events.filter((event) => event.type === "assistant_message").at(-1) as { content: string };
  const calls = events.flatMap((event) => (event.type === "tool_call" ? [{ tool: event.tool, args: event.args }] : []));
  const results = events.filter(
    (event): event is Extract<RunEvent, { type: "tool_result" }> => event.type === "tool_result",
  );
  return { threadId: thread, events, answer: answer.content, calls, results };
}

describe("the demo model's follow-ups on a thread", () => {
  it("answers 'and the order service?' with the previous question about the order service", async () => {
    const first = await ask("check the payment service errors in prod");
    expect(first.answer).toContain("PAY-5031");
    const second = await ask("and the order service?", first.threadId);
    expect(second.calls).toEqual([
      { tool: "search_resource", args: { query: "order" } },
      {
        tool: "search_logs",
        args: { service: "order-service", environment: "prod", level: "ERROR", sinceHours: 24, limit: 20 },
      },
    ]);
    expect(second.events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(second.answer).toMatch(
      /^\[demo model\] Order Service \(order-service, owner [^)]+\) in prod logged \d+ ERROR entries/,
    );
    expect(second.answer).toMatch(/\n- ORD-\d+: \d+×/);
    expect(second.answer).not.toMatch(/\n- PAY-5031: /);
  });

  it("answers 那订单服务呢？ after a Chinese question, in Chinese", async () => {
    const first = await ask("看看支付服务在生产环境最近的报错");
    expect(first.answer).toContain("PAY-5031");
    const second = await ask("那订单服务呢？", first.threadId);
    expect(second.calls.map((call) => call.tool)).toEqual(["search_resource", "search_logs"]);
    expect(second.calls[0]!.args).toEqual({ query: "订单" });
    expect(second.calls[1]!.args).toMatchObject({ service: "order-service", environment: "prod" });
    expect(second.answer).toMatch(
      /^【演示模型】订单服务（order-service，负责人 [^）]+）在 prod 环境最近的 ERROR 日志共 \d+ 条/,
    );
  });

  it("keeps a plain question about a service without earlier questions as a request for help", async () => {
    const alone = await ask("the order service");
    expect(alone.calls).toEqual([]);
    expect(alone.answer).toContain("- a service's metrics");
  });
});

describe("the demo model's metrics answer", () => {
  it("is prose with a small Markdown table of the observed numbers", async () => {
    const { answer, calls } = await ask("metrics of the payment service in prod");
    expect(calls.map((call) => call.tool)).toEqual(["search_resource", "get_service_metrics"]);
    const [summary, verdict, blank, ...table] = answer.split("\n");
    expect(summary).toMatch(
      /^\[demo model\] payment-service in prod is degraded, running [\d.]+ \(previous [\d.]+\)\. Over the last 5 minutes, 7\.8% of requests failed and p95 latency was 2350 ms\.$/,
    );
    expect(verdict).toBe('That is not healthy; ask "check the payment-service errors in prod" to see why.');
    expect(blank).toBe("");
    expect(table).toEqual([
      "| metric | value |",
      "| --- | --- |",
      "| error rate | 7.8% |",
      "| p95 latency | 2350 ms |",
      "| requests per second | 420 |",
      "| CPU | 71% |",
      "| memory | 83% |",
      "| instances | 6 |",
      "| restarts | 0 |",
    ]);
  });

  it("is written in Chinese for a Chinese question", async () => {
    const { answer } = await ask("订单服务在生产环境的指标怎么样");
    expect(answer).toContain("【演示模型】order-service 在 prod 环境目前状态为");
    expect(answer).toContain("错误率 1.9%，P95 延迟 640 ms。");
    expect(answer).toContain("| 指标 | 数值 |\n| --- | --- |\n| 错误率 | 1.9% |\n| P95 延迟 | 640 ms |");
    expect(answer).toContain("这些数字看起来正常。");
  });
});

describe("the demo model on a request it does not understand", () => {
  it("lists what it understands, in English", async () => {
    const { answer, calls } = await ask("what's the weather like?");
    expect(calls).toEqual([]);
    expect(answer.split("\n")).toEqual([
      "[demo model] I am the offline demo model and understand only these requests:",
      '- a service\'s recent errors, e.g. "check the payment service errors in prod" (add "and the runbook advice" to compare them with the runbooks)',
      '- a service\'s metrics, e.g. "metrics of the order service in prod"',
      '- runbook lookups, e.g. "how do I handle an exhausted connection pool"',
      '- restarting or rolling back a service once you approve, e.g. "restart the payment service in staging"',
      '- follow-ups on the same thread, e.g. "and the order service?"',
    ]);
  });

  it("lists what it understands, in Chinese", async () => {
    const { answer } = await ask("今天天气如何");
    expect(answer.split("\n")[0]).toBe("【演示模型】我是离线演示模型，只听得懂这几类请求：");
    expect(answer).toContain("- 查服务的指标，比如“订单服务在生产环境的指标怎么样”");
    expect(answer).toContain("- 同一个会话里接着问别的服务，比如“那订单服务呢？”");
  });
});
