import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { DemoChatModel } from "../../../src/demo/model/demo-model.js";

const DEMO_TOOLS = [
  "search_resource",
  "search_logs",
  "search_docs",
  "get_service_metrics",
  "restart_service",
  "rollback_deploy",
];
const TOOLSETS = ["prometheus_query", "prometheus_query_range", "alertmanager_silences", "alertmanager_create_silence"];
const spec = (name: string) => ({
  type: "function" as const,
  function: { name, description: `${name} tool`, parameters: { type: "object", properties: {} } },
});
const demo = (tools: string[]) => new DemoChatModel().bindTools(tools.map(spec));

const RULE = 'rate(http_errors_total{service="payment-service"}[1m]) > 0.5';
const MEASURED = 'rate(http_errors_total{service="payment-service"}[1m])';
const alertMessage = (labels = "alertname=PaymentHighErrorRate, service=payment-service, severity=critical") =>
  [
    "Alertmanager alert PaymentHighErrorRate is firing since 2026-12-01T19:36:44Z (1 firing alert(s) in the group).",
    `Labels: ${labels}`,
    "summary: payment errors above 0.5/s",
    `Rule expression: ${RULE}`,
    "Alerts:",
    `- ${labels}, instance=10.0.0.7:8080 (since 2026-12-01T19:36:44Z)`,
    "Investigate: find the cause with the metrics, logs and runbooks, and say what should be done.",
  ].join("\n");

const series = (host: string, value: number) => [`{instance="${host}:8080", service="payment-service"}`, value];
const table = (query: string, rows: unknown[][]) => ({
  ok: true,
  data: {
    query,
    resultType: "vector",
    time: "2026-12-01T19:40:00.000Z",
    seriesCount: rows.length,
    seriesOmitted: 0,
    columns: ["series", "value"],
    rows,
  },
});
const defaults: Record<string, (args: Record<string, unknown>) => unknown> = {
  // The rule keeps the series above its threshold; what it measures has every series.
  prometheus_query: (args) =>
    table(
      String(args.query),
      args.query === RULE ? [series("10.0.0.7", 0.73)] : [series("10.0.0.7", 0.73), series("10.0.0.8", 0.12)],
    ),
  search_resource: () => ({
    ok: true,
    data: { query: "payment-service", results: [{ id: "payment-service", name: "Payment Service", kind: "service" }] },
  }),
  get_service_metrics: (args) => ({
    ok: true,
    data: { service: args.service, environment: "prod", status: "degraded", metrics: { errorRatePercent: 7.4 } },
  }),
  search_logs: () => ({
    ok: true,
    data: {
      service: "payment-service",
      environment: "prod",
      total: 24,
      byCode: [{ code: "PAY-5031", count: 24, sample: "connection pool exhausted" }],
    },
  }),
  search_docs: () => ({
    ok: true,
    data: {
      query: "PaymentHighErrorRate payment-service",
      results: [
        {
          id: "RB-003",
          title: "Connection pool exhausted",
          services: ["payment-service"],
          errorCodes: ["PAY-5031"],
          advice: ["Raise the pool size to 50", "Look for slow queries"],
        },
      ],
    },
  }),
  alertmanager_create_silence: () => ({
    ok: true,
    data: {
      silenceId: "6f1c2d9e-8a4b-4c1d-9e7f-0a1b2c3d4e5f",
      state: "active",
      matchers: 'alertname="PaymentHighErrorRate", service="payment-service"',
      startsAt: "2026-12-01T19:40:00.000Z",
      endsAt: "2026-12-01T21:40:00.000Z",
      created: true,
    },
  }),
};

const calls = (message: AIMessage) => (message.tool_calls ?? []).map(({ name, args }) => ({ name, args }));

/** Asks, answers every call from `overrides` (by tool name) or the defaults, and asks again, until an answer. */
async function converse(
  model: ReturnType<typeof demo>,
  history: BaseMessage[],
  overrides: Record<string, unknown> = {},
): Promise<{ steps: Array<Array<{ name: string; args: Record<string, unknown> }>>; answer: string }> {
  const steps: Array<Array<{ name: string; args: Record<string, unknown> }>> = [];
  for (let step = 0; step < 6; step += 1) {
    const reply = (await model.invoke(history)) as AIMessage;
    history.push(reply);
    if (!reply.tool_calls?.length) return { steps, answer: String(reply.content) };
    steps.push(calls(reply));
    for (const call of reply.tool_calls) {
      const observation = overrides[call.name] ?? defaults[call.name]!(call.args);
      history.push(new ToolMessage({ tool_call_id: call.id!, name: call.name, content: JSON.stringify(observation) }));
    }
  }
  throw new Error("no answer after 6 steps");
}

describe("the demo model on an alert, with Prometheus", () => {
  it("reads the rule and what it measures with the runbooks at once, and quotes the values", async () => {
    const { steps, answer } = await converse(demo([...DEMO_TOOLS, ...TOOLSETS]), [new HumanMessage(alertMessage())]);
    // No label names the environment: the logs would pause the investigation to ask a person, so they wait.
    expect(steps).toEqual([
      [
        { name: "prometheus_query", args: { query: RULE } },
        { name: "prometheus_query", args: { query: MEASURED } },
        { name: "search_docs", args: { query: "PaymentHighErrorRate payment-service" } },
      ],
    ]);
    expect(answer.split("\n").filter(Boolean)).toEqual([
      "[demo model] Alert PaymentHighErrorRate on payment-service (firing since 2026-12-01T19:36:44Z): what I read first.",
      `- The rule \`${RULE}\` still holds now: {instance="10.0.0.7:8080", service="payment-service"} = 0.73.`,
      `- What it measures, \`${MEASURED}\` (alerting at > 0.5), is now: {instance="10.0.0.7:8080", service="payment-service"} = 0.73; {instance="10.0.0.8:8080", service="payment-service"} = 0.12.`,
      'No label names the environment, so I did not read the logs: ask "check the payment-service errors in prod" for them.',
      "Advice from the runbooks:",
      '- RB-003 "Connection pool exhausted":',
      "  1. Raise the pool size to 50",
      "  2. Look for slow queries",
      "Runbooks cited: RB-003.",
      "Next step: follow RB-003, starting with: Raise the pool size to 50.",
      'If it does not recover, I can restart payment-service: say "restart it" (the restart waits for a person\'s approval).',
      'To stop the paging while you work, say "silence this alert for 2 hours" (it waits for approval too).',
    ]);
  });

  it("reads the logs with the metrics when a label names the environment", async () => {
    const labels = "alertname=PaymentHighErrorRate, env=prod, service=payment-service, severity=critical";
    const { steps, answer } = await converse(demo([...DEMO_TOOLS, ...TOOLSETS]), [
      new HumanMessage(alertMessage(labels)),
    ]);
    expect(steps).toHaveLength(1);
    expect(steps[0]!.map((call) => call.name)).toEqual([
      "prometheus_query",
      "prometheus_query",
      "search_docs",
      "search_logs",
    ]);
    expect(steps[0]![3]!.args).toEqual({ service: "payment-service", level: "ERROR", environment: "prod" });
    expect(answer).toContain("payment-service in prod logged 24 ERROR entries recently, by code:\n\n- PAY-5031: 24×");
    expect(answer).toContain('RB-003 "Connection pool exhausted" (covers PAY-5031)');
  });

  it("says the rule no longer holds and advises waiting, when Prometheus returns no series", async () => {
    const { answer } = await converse(demo(["prometheus_query"]), [new HumanMessage(alertMessage())], {
      prometheus_query: table(RULE, []),
    });
    expect(answer).toContain(`The rule \`${RULE}\` returns no series now: its condition does not hold at this moment.`);
    expect(answer).toContain("change nothing yet; watch whether Alertmanager reports it resolved");
    expect(answer).not.toContain("restart");
  });

  it("reports a query Prometheus refused, and proposes only the tools that are bound", async () => {
    const refused = { ok: false, errorCode: "invalid_args", message: "Prometheus: parse error at char 5" };
    const { steps, answer } = await converse(demo(["prometheus_query"]), [new HumanMessage(alertMessage())], {
      prometheus_query: refused,
    });
    expect(steps).toEqual([
      [
        { name: "prometheus_query", args: { query: RULE } },
        { name: "prometheus_query", args: { query: MEASURED } },
      ],
    ]);
    expect(answer).toContain("prometheus_query failed (invalid_args): Prometheus: parse error at char 5");
  });
});

describe("the demo model on an alert, without Prometheus", () => {
  it("reads the service's metrics and logs through the built-in tools and never proposes a write", async () => {
    const { steps, answer } = await converse(demo(DEMO_TOOLS), [new HumanMessage(alertMessage())]);
    expect(steps).toEqual([
      [
        { name: "search_resource", args: { query: "payment-service" } },
        { name: "search_docs", args: { query: "PaymentHighErrorRate payment-service" } },
      ],
      [
        { name: "get_service_metrics", args: { service: "payment-service" } },
        { name: "search_logs", args: { service: "payment-service", level: "ERROR" } },
      ],
    ]);
    expect(answer).toContain("7.4% of requests failed");
    expect(answer).toContain(
      "| error rate | 7.4% |\n\nPayment Service (payment-service) in prod logged 24 ERROR entries",
    );
    expect(answer).toContain("Next step: follow RB-003");
    expect(answer).not.toContain("silence this alert");
  });

  it("investigates a PagerDuty incident's service", async () => {
    const incident =
      'PagerDuty incident #1234 "Payment API 5xx" triggered at 2026-12-01T10:00:00Z.\nService: payment-service';
    const { steps, answer } = await converse(demo(DEMO_TOOLS), [new HumanMessage(incident)]);
    expect(steps[0]).toEqual([
      { name: "search_resource", args: { query: "payment-service" } },
      { name: "search_docs", args: { query: "Payment API 5xx payment-service" } },
    ]);
    expect(
      answer.startsWith(
        '[demo model] PagerDuty incident "Payment API 5xx" on payment-service (firing since 2026-12-01T10:00:00Z)',
      ),
    ).toBe(true);
  });
});

describe("the demo model asked to silence the thread's alert", () => {
  const thread = (request: string): BaseMessage[] => [
    new HumanMessage(alertMessage()),
    new AIMessage("[demo model] Alert PaymentHighErrorRate ..."),
    new HumanMessage(request),
  ];

  it.each([
    ["silence this alert for 2 hours", 120, "Silenced for 2 hours as asked"],
    ["mute it for 30 minutes", 30, "Silenced for 30 minutes as asked"],
    ["把这个告警静默两小时", 120, "请求静默 2 小时"],
  ])("proposes the silence for %s and answers with its id", async (request, minutes, comment) => {
    const { steps, answer } = await converse(demo([...DEMO_TOOLS, ...TOOLSETS]), thread(request));
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject([
      {
        name: "alertmanager_create_silence",
        args: {
          matchers: [
            { name: "alertname", value: "PaymentHighErrorRate", isRegex: false },
            { name: "service", value: "payment-service", isRegex: false },
          ],
          durationMinutes: minutes,
        },
      },
    ]);
    expect(String(steps[0]![0]!.args.comment)).toContain(comment);
    expect(String(steps[0]![0]!.args.comment)).toContain("PaymentHighErrorRate");
    expect(answer).toContain("6f1c2d9e-8a4b-4c1d-9e7f-0a1b2c3d4e5f");
    expect(answer).toContain(
      request.startsWith("把") ? "已静默 PaymentHighErrorRate" : "Silenced PaymentHighErrorRate",
    );
  });

  it("reports a rejected silence as rejected", async () => {
    const rejected = { ok: false, errorCode: "rejected_by_user", message: "not during the release" };
    const { answer } = await converse(demo(TOOLSETS), thread("silence it for 1 hour"), {
      alertmanager_create_silence: rejected,
    });
    expect(answer).toBe(
      "[demo model] You rejected the silence of PaymentHighErrorRate; nothing was silenced (not during the release).",
    );
  });

  it.each([
    [
      [new HumanMessage("silence this alert for 2 hours")],
      TOOLSETS,
      "[demo model] I found no alert in this thread, so I do not know what to silence. Which alert do you mean?",
    ],
    [[new HumanMessage("把这个告警静默两小时")], TOOLSETS, "【演示模型】这个会话里没有找到告警，我不知道要静默哪个。"],
    [
      [new HumanMessage(alertMessage()), new HumanMessage("silence this alert for 2 hours")],
      DEMO_TOOLS,
      "[demo model] Alertmanager is not configured here (no alertmanager_create_silence tool), so I cannot silence PaymentHighErrorRate.",
    ],
    [
      [new HumanMessage(alertMessage()), new HumanMessage("silence it")],
      TOOLSETS,
      '[demo model] For how long should I silence PaymentHighErrorRate? For example: "silence this alert for 2 hours".',
    ],
    [
      [new HumanMessage(alertMessage()), new HumanMessage("silence it for 8 days")],
      TOOLSETS,
      "[demo model] A silence lasts at most 7 days",
    ],
    [
      [
        new HumanMessage('PagerDuty incident #9 "Disk full" triggered\nService: db'),
        new HumanMessage("mute it for 2h"),
      ],
      TOOLSETS,
      '[demo model] "Disk full" is a PagerDuty incident, not an Alertmanager alert',
    ],
  ])("says why and calls nothing (%#)", async (history, tools, start) => {
    const reply = (await demo(tools).invoke(history)) as AIMessage;
    expect(reply.tool_calls).toEqual([]);
    expect(String(reply.content).startsWith(start)).toBe(true);
  });
});
