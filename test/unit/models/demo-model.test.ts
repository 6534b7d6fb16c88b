import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, ToolMessage, type AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { Marked } from "marked";
import { DemoChatModel } from "../../../src/demo/model/demo-model.js";

const DEMO_TOOLS = [
  "search_resource",
  "search_logs",
  "search_docs",
  "get_service_metrics",
  "restart_service",
  "rollback_deploy",
];
const spec = (name: string) => ({
  type: "function" as const,
  function: { name, description: `${name} tool`, parameters: { type: "object", properties: {} } },
});
const demo = (tools: string[] = DEMO_TOOLS) => new DemoChatModel().bindTools(tools.map(spec));

const payment = {
  id: "payment-service",
  name: "Payment Service",
  nameZh: "支付服务",
  kind: "service",
  owner: "pay-team",
  tier: "tier-1",
  status: "degraded",
  description: "Payments",
};
const observations: Record<string, unknown> = {
  search_resource: { ok: true, data: { query: "支付", results: [payment] } },
  search_docs: {
    ok: true,
    data: {
      query: "支付",
      results: [
        {
          id: "RB-PAY-001",
          title: "Payment gateway timeouts",
          titleZh: "支付网关超时处理",
          score: 3,
          services: ["payment-service"],
          errorCodes: ["PAY_GATEWAY_TIMEOUT"],
          advice: ["Check the gateway status page", "Raise the client timeout to 5s"],
        },
        {
          id: "RB-DB-004",
          title: "Connection pool exhausted",
          titleZh: "连接池耗尽",
          score: 1,
          services: ["order-service"],
          errorCodes: ["DB_POOL_EXHAUSTED"],
          advice: ["Scale the pool"],
        },
      ],
    },
  },
  search_logs: {
    ok: true,
    data: {
      service: "payment-service",
      environment: "prod",
      total: 19,
      byCode: [
        {
          code: "PAY_GATEWAY_TIMEOUT",
          count: 12,
          lastSeen: "2025-05-01T09:58:00Z",
          sample: "gateway timeout after 3000ms",
        },
        { code: "PAY_CARD_DECLINED", count: 7, lastSeen: "2025-05-01T09:40:00Z", sample: "card declined" },
      ],
      lines: [],
    },
  },
};

async function ask(model: ReturnType<typeof demo>, messages: BaseMessage[]): Promise<AIMessage> {
  return (await model.invoke(messages)) as AIMessage;
}

/** Answers every call of `reply` with the given observations (by tool name) or the defaults above. */
function observe(reply: AIMessage, overrides: Record<string, unknown> = {}): ToolMessage[] {
  return (reply.tool_calls ?? []).map(
    (call) =>
      new ToolMessage({
        tool_call_id: call.id!,
        name: call.name,
        content: JSON.stringify(overrides[call.name] ?? observations[call.name]),
      }),
  );
}

const calls = (message: AIMessage) => (message.tool_calls ?? []).map(({ name, args }) => ({ name, args }));

describe.each([
  ["zh", "看看支付服务最近报错，顺便对照一下文档里的处理建议", "支付", "【演示模型】"],
  [
    "en",
    "Check the payment service's recent errors and compare them with the handling advice in the runbooks",
    "payment",
    "[demo model] ",
  ],
])("the seed question in %s", (_language, question, query, label) => {
  it("plans resource and docs searches in parallel, then the error logs, then answers from the observations", async () => {
    const model = demo();
    const history: BaseMessage[] = [new HumanMessage(question)];

    const step1 = await ask(model, history);
    expect(calls(step1)).toEqual([
      { name: "search_resource", args: { query } },
      { name: "search_docs", args: { query } },
    ]);
    expect(step1.content).toBe("");
    const ids = step1.tool_calls!.map((call) => call.id);
    expect(new Set(ids).size).toBe(2);
    expect(ids.every((id) => typeof id === "string" && id.length > 0)).toBe(true);
    expect(step1.usage_metadata!.input_tokens).toBeGreaterThan(0);
    expect(step1.usage_metadata!.total_tokens).toBe(
      step1.usage_metadata!.input_tokens + step1.usage_metadata!.output_tokens,
    );
    history.push(step1, ...observe(step1));

    const step2 = await ask(model, history);
    expect(calls(step2)).toEqual([{ name: "search_logs", args: { service: "payment-service", level: "ERROR" } }]);
    history.push(step2, ...observe(step2));

    const answer = await ask(model, history);
    expect(answer.tool_calls).toEqual([]);
    const text = String(answer.content);
    expect(text.startsWith(label)).toBe(true);
    // Drawn as the page draws it, each list stays a list and the lines after it are paragraphs of their own.
    const html = new Marked({ gfm: true, breaks: true }).parse(text, { async: false }) as string;
    const advice = label === "[demo model] " ? "Advice from the runbooks:" : "文档里的处理建议：";
    expect(html).toContain(`<p>${advice}</p>`);
    expect(html.match(/<ul>/g)).toHaveLength(2);
    for (const fact of [
      "payment-service",
      "prod",
      "19",
      "PAY_GATEWAY_TIMEOUT",
      "12",
      "PAY_CARD_DECLINED",
      "7",
      "RB-PAY-001",
      "Raise the client timeout to 5s",
    ])
      expect(text).toContain(fact);
    expect(text).not.toContain("RB-DB-004");
    expect(answer.usage_metadata!.output_tokens).toBeGreaterThan(0);
  });
});

describe("DemoChatModel", () => {
  it("adds the environment only when the user named it", async () => {
    const model = demo();
    const history: BaseMessage[] = [new HumanMessage("看看生产环境支付服务最近的报错")];
    const step1 = await ask(model, history);
    expect(calls(step1)).toEqual([{ name: "search_resource", args: { query: "支付" } }]);
    const step2 = await ask(model, [...history, step1, ...observe(step1)]);
    expect(calls(step2)).toEqual([
      { name: "search_logs", args: { service: "payment-service", level: "ERROR", environment: "prod" } },
    ]);
  });

  it.each([
    ["你好", "【演示模型】你好"],
    ["hello", "[demo model] Hello"],
    ["thanks!", "[demo model] You're welcome"],
    ["谢谢", "【演示模型】不客气"],
  ])("answers small talk %s without tools", async (question, start) => {
    const reply = await ask(demo(), [new HumanMessage(question)]);
    expect(reply.tool_calls).toEqual([]);
    expect(String(reply.content).startsWith(start)).toBe(true);
  });

  it("says plainly which tool failed and why", async () => {
    const model = demo();
    const history: BaseMessage[] = [new HumanMessage("Check the payment service's recent errors")];
    const step1 = await ask(model, history);
    const step2 = await ask(model, [...history, step1, ...observe(step1)]);
    const failed = { ok: false, errorCode: "timeout", message: "search_logs did not answer within 5000 ms." };
    const answer = await ask(model, [
      ...history,
      step1,
      ...observe(step1),
      step2,
      ...observe(step2, { search_logs: failed }),
    ]);
    expect(answer.content).toBe(
      "[demo model] search_logs failed (timeout): search_logs did not answer within 5000 ms.",
    );
  });

  it("reports that no service matched instead of guessing one", async () => {
    const model = demo();
    const history: BaseMessage[] = [new HumanMessage("重启库存服务")];
    const step1 = await ask(model, history);
    expect(calls(step1)).toEqual([{ name: "search_resource", args: { query: "库存" } }]);
    const empty = { ok: true, data: { query: "库存", results: [] } };
    const answer = await ask(model, [...history, step1, ...observe(step1, { search_resource: empty })]);
    expect(answer.content).toBe("【演示模型】没有找到与“库存”匹配的服务。");
  });

  it("finds the service, proposes the restart without a guessed environment, and reports the result", async () => {
    const model = demo();
    const history: BaseMessage[] = [new HumanMessage("restart the payment service")];
    const step1 = await ask(model, history);
    history.push(step1, ...observe(step1));
    const step2 = await ask(model, history);
    expect(calls(step2)).toEqual([{ name: "restart_service", args: { service: "payment-service" } }]);
    const restarted = {
      ok: true,
      data: {
        action: "restart",
        service: "payment-service",
        environment: "staging",
        restartedAt: "2025-05-01T10:00:00Z",
        restartCount: 3,
      },
    };
    const answer = await ask(model, [...history, step2, ...observe(step2, { restart_service: restarted })]);
    expect(answer.content).toBe(
      "[demo model] Restarted payment-service in staging at 2025-05-01T10:00:00Z (restart #3).",
    );
  });

  it("reports a rejected restart as rejected, not as a failure", async () => {
    const model = demo();
    const history: BaseMessage[] = [new HumanMessage("重启生产环境的支付服务")];
    const step1 = await ask(model, history);
    history.push(step1, ...observe(step1));
    const step2 = await ask(model, history);
    expect(calls(step2)).toEqual([
      { name: "restart_service", args: { service: "payment-service", environment: "prod" } },
    ]);
    const rejected = { ok: false, errorCode: "rejected_by_user", message: "高峰期不要重启" };
    const answer = await ask(model, [...history, step2, ...observe(step2, { restart_service: rejected })]);
    expect(answer.content).toBe("【演示模型】你拒绝了重启 payment-service，没有执行任何操作（高峰期不要重启）。");
  });

  it("proposes a rollback with the version the user named", async () => {
    const model = demo();
    const history: BaseMessage[] = [new HumanMessage("把支付服务回滚到 v2.3.1")];
    const step1 = await ask(model, history);
    const step2 = await ask(model, [...history, step1, ...observe(step1)]);
    expect(calls(step2)).toEqual([
      { name: "rollback_deploy", args: { service: "payment-service", toVersion: "v2.3.1" } },
    ]);
  });

  it("proposes only tools that are bound, and answers when none is", async () => {
    const onlyResource = await ask(demo(["search_resource"]), [
      new HumanMessage("看看支付服务最近报错，顺便对照一下文档里的处理建议"),
    ]);
    expect(calls(onlyResource)).toEqual([{ name: "search_resource", args: { query: "支付" } }]);
    const unbound = (await new DemoChatModel().invoke([new HumanMessage("restart the payment service")])) as AIMessage;
    expect(unbound.tool_calls).toEqual([]);
    expect(String(unbound.content).startsWith("[demo model] ")).toBe(true);
  });

  it("binds tools on a new instance and leaves the original unbound", () => {
    const original = new DemoChatModel();
    const bound = original.bindTools(DEMO_TOOLS.map(spec)) as DemoChatModel;
    expect(bound).not.toBe(original);
    expect(bound.boundTools).toEqual(DEMO_TOOLS);
    expect(original.boundTools).toEqual([]);
  });

  it("reads error counts from a cut observation and says it was cut", async () => {
    const model = demo();
    const history: BaseMessage[] = [new HumanMessage("Check the payment service's recent errors")];
    const step1 = await ask(model, history);
    const step2 = await ask(model, [...history, step1, ...observe(step1)]);
    const preview = JSON.stringify((observations.search_logs as { data: unknown }).data).slice(0, 150);
    const cut = { ok: true, data: preview, truncated: { originalChars: 400, keptChars: 150 } };
    const answer = String(
      (await ask(model, [...history, step1, ...observe(step1), step2, ...observe(step2, { search_logs: cut })]))
        .content,
    );
    expect(answer).toContain("PAY_GATEWAY_TIMEOUT: 12×");
    expect(answer).toContain("The log result was cut");
  });

  it("streams the same tool calls and answer it returns, with usage", async () => {
    const model = demo();
    const merge = async (messages: BaseMessage[]) => {
      let merged: AIMessageChunk | undefined;
      for await (const chunk of await model.stream(messages)) merged = merged ? merged.concat(chunk) : chunk;
      return merged!;
    };
    const question = [new HumanMessage("看看支付服务最近报错，顺便对照一下文档里的处理建议")];
    const streamed = await merge(question);
    expect(streamed.tool_calls?.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: "search_resource", args: { query: "支付" } },
      { name: "search_docs", args: { query: "支付" } },
    ]);
    expect(streamed.tool_calls?.every((call) => call.id?.startsWith("call_"))).toBe(true);
    expect(streamed.usage_metadata?.total_tokens).toBeGreaterThan(0);
    const greeting = await merge([new HumanMessage("你好")]);
    expect(greeting.content).toBe((await ask(model, [new HumanMessage("你好")])).content);
  });
});
