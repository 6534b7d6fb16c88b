import { createServer, type Server } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/file.js";
import type { RunEvent } from "../../src/contracts/events.js";
import type { AgentStateType } from "../../src/graph/state.js";
import { createToolsetTools } from "../../src/tools/toolsets/index.js";
import type { ToolDefinition } from "../../src/tools/types.js";
import { ApiClient, startTestServer, type TestServer } from "../fixtures/http.js";
import { observationOf, pauseOf } from "../fixtures/mcp-app.js";
import { monitoringBinariesPresent, startMonitoringStack, type MonitoringStack } from "../fixtures/monitoring-stack.js";
import { answerMessage, callsMessage, ScriptedChatModel, type ScriptStep } from "../fixtures/scripted-model.js";

const RULES = `groups:
  - name: payments
    rules:
      - alert: PaymentErrorsHigh
        expr: payment_errors > 5
        labels: { severity: page }
        annotations: { summary: "payment-service errors above 5" }
`;
/** The on-call engineer's token: the user who asks and approves. */
const TOKEN = "oncall-ann-token";
const ANN = { id: "ann", role: "operator" };

let stack: MonitoringStack;
let series: string;
const servers: TestServer[] = [];

async function poll<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function silences(): Promise<Array<Record<string, unknown> & { status: { state: string }; comment: string }>> {
  return (await (await fetch(`${stack.alertmanagerUrl}/api/v2/silences`)).json()) as never;
}

/** A server over the real stack with a scripted model; `toolsets` replaces the direct URLs when given. */
async function serverWith(script: ScriptStep[], toolsets?: Record<string, unknown>, variables = {}) {
  const config = parseConfig(
    {
      demo: false,
      toolsets: toolsets ?? { prometheus: { url: stack.prometheusUrl }, alertmanager: { url: stack.alertmanagerUrl } },
    },
    variables,
  );
  const model = new ScriptedChatModel({ script, onExhausted: "answer" });
  const server = await startTestServer({ model, config, auth: { tokens: new Map([[TOKEN, ANN]]) } });
  servers.push(server);
  const client = new ApiClient(server.url, TOKEN);
  const messages = async (threadId: string) =>
    ((await server.graph.getState({ configurable: { thread_id: threadId } })).values as AgentStateType).messages;
  return {
    client,
    /** Runs one message on a new thread. */
    async ask(message: string) {
      const threadId = await client.createThread();
      return { threadId, events: await client.run(threadId, message) };
    },
    /** The observation of a call as the model read it. */
    observation: async (threadId: string, callId: string) => observationOf(await messages(threadId), callId),
  };
}

const finished = (events: RunEvent[]) => events.at(-1);

/** Creates a one-hour silence of an alertname through Alertmanager's own API and returns its id. */
async function silenceDirectly(alertname: string, comment: string): Promise<string> {
  const response = await fetch(`${stack.alertmanagerUrl}/api/v2/silences`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      matchers: [{ name: "alertname", value: alertname, isRegex: false, isEqual: true }],
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
      createdBy: "someone",
      comment,
    }),
  });
  return ((await response.json()) as { silenceID: string }).silenceID;
}

describe.skipIf(!monitoringBinariesPresent)("the Prometheus and Alertmanager toolsets on a real stack", () => {
  beforeAll(async () => {
    stack = await startMonitoringStack({ rules: RULES });
    stack.exporter.set("payment_errors", { service: "payment-service" }, 42);
    series = `payment_errors{instance="${stack.exporter.target}", job="exporter", service="payment-service"}`;
    // Three scrapes, so a range has points, and the rule has fired.
    await poll(async () => {
      const response = await fetch(`${stack.prometheusUrl}/api/v1/query?query=count_over_time(payment_errors[1m])`);
      const body = (await response.json()) as { data: { result: Array<{ value: [number, string] }> } };
      return Number(body.data.result[0]?.value[1]) >= 3 ? true : undefined;
    }, "three scrapes of the exporter");
    await poll(async () => {
      const body = (await (await fetch(`${stack.prometheusUrl}/api/v1/alerts`)).json()) as {
        data: { alerts: Array<{ state: string }> };
      };
      return body.data.alerts.some((alert) => alert.state === "firing") ? true : undefined;
    }, "the rule to fire");
  }, 40_000);
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("answers prometheus_query with the exporter's value as a one-row table", async () => {
    const app = await serverWith([
      callsMessage([{ name: "prometheus_query", args: { query: "payment_errors" }, id: "q1" }]),
    ]);
    const { threadId, events } = await app.ask("how many payment errors?");
    expect(finished(events)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(await app.observation(threadId, "q1")).toMatchObject({
      ok: true,
      data: {
        query: "payment_errors",
        resultType: "vector",
        seriesCount: 1,
        seriesOmitted: 0,
        columns: ["series", "value"],
        rows: [[series, 42]],
      },
    });
  });

  it("answers prometheus_query_range with the points of the range and their stats", async () => {
    const app = await serverWith([
      callsMessage([
        {
          name: "prometheus_query_range",
          args: { query: "payment_errors", start: "now-1m", end: "now", step: "1s" },
          id: "r1",
        },
      ]),
    ]);
    const { threadId } = await app.ask("payment errors over the last minute");
    const seen = (await app.observation(threadId, "r1")) as {
      ok: boolean;
      data: {
        seriesCount: number;
        stepSeconds: number;
        series: Array<Record<string, unknown> & { values: unknown[] }>;
      };
    };
    expect(seen.ok).toBe(true);
    expect(seen.data).toMatchObject({ resultType: "matrix", stepSeconds: 1, seriesCount: 1, seriesOmitted: 0 });
    const [only] = seen.data.series;
    expect(only).toMatchObject({ series, min: 42, max: 42, last: 42 });
    expect(only!.points).toBeGreaterThanOrEqual(3);
    expect(only!.values.length).toBe(Math.min(30, only!.points as number));
    expect(only!.values.every((point) => (point as [string, number])[1] === 42)).toBe(true);
  });

  it("gives invalid_args with Prometheus's own message for bad PromQL, and refuses a range that ends before it starts", async () => {
    const app = await serverWith([
      callsMessage([
        { name: "prometheus_query", args: { query: "sum(payment_errors" }, id: "bad" },
        { name: "prometheus_query_range", args: { query: "up", start: "now", end: "now-1h", step: "1m" }, id: "back" },
      ]),
    ]);
    const { threadId } = await app.ask("query it");
    const bad = await app.observation(threadId, "bad");
    expect(bad).toMatchObject({ ok: false, errorCode: "invalid_args" });
    expect(bad.message).toMatch(
      /^Prometheus: invalid parameter "query": 1:\d+: parse error: unclosed left parenthesis$/,
    );
    const back = await app.observation(threadId, "back");
    expect(back).toMatchObject({ ok: false, errorCode: "invalid_args" });
    expect(back.message).toContain("end: must be later than start");
  });

  it("lists the firing alert and finds the metric by name", async () => {
    const app = await serverWith([
      callsMessage([
        { name: "prometheus_alerts", args: {}, id: "a1" },
        { name: "prometheus_metric_names", args: { contains: "PAYMENT" }, id: "n1" },
        { name: "prometheus_metric_names", args: { label: "service", match: "payment_errors" }, id: "n2" },
      ]),
    ]);
    const { threadId } = await app.ask("what is firing?");
    expect(await app.observation(threadId, "a1")).toMatchObject({
      ok: true,
      data: {
        state: "firing",
        count: 1,
        alerts: [
          {
            alertname: "PaymentErrorsHigh",
            state: "firing",
            labels: `{instance="${stack.exporter.target}", job="exporter", service="payment-service", severity="page"}`,
            value: 42,
            summary: "payment-service errors above 5",
          },
        ],
      },
    });
    expect(await app.observation(threadId, "n1")).toMatchObject({
      ok: true,
      data: { label: "__name__", total: 1, omitted: 0, names: ["payment_errors"] },
    });
    expect(await app.observation(threadId, "n2")).toMatchObject({
      ok: true,
      data: { label: "service", names: ["payment-service"] },
    });
  });

  it("sends the configured headers, with ${VAR} filled from the environment, to Prometheus", async () => {
    const seen: Array<string | undefined> = [];
    const proxy: Server = createServer((request, response) => {
      seen.push(request.headers.authorization);
      fetch(`${stack.prometheusUrl}${request.url}`).then(
        async (answer) => {
          response.writeHead(answer.status, { "content-type": "application/json" });
          response.end(await answer.text());
        },
        () => response.writeHead(502).end(),
      );
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = proxy.address() as { port: number };
      const app = await serverWith(
        [callsMessage([{ name: "prometheus_query", args: { query: "payment_errors" }, id: "h1" }])],
        { prometheus: { url: `http://127.0.0.1:${port}/`, headers: { Authorization: "Bearer ${PROM_TOKEN}" } } },
        { PROM_TOKEN: "prom-secret-7" },
      );
      const { threadId } = await app.ask("payment errors?");
      expect(await app.observation(threadId, "h1")).toMatchObject({ ok: true, data: { rows: [[series, 42]] } });
      expect(seen).toEqual(["Bearer prom-secret-7"]);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it("pauses alertmanager_create_silence for approval and, once approved, creates it with the approver as createdBy", async () => {
    const args = {
      matchers: [
        { name: "alertname", value: "PaymentErrorsHigh" },
        { name: "service", value: "payment-.*", isRegex: true },
      ],
      durationMinutes: 120,
      comment: "known incident, fix deploying",
    };
    const app = await serverWith([callsMessage([{ name: "alertmanager_create_silence", args, id: "s1" }])]);
    const { threadId, events } = await app.ask("silence this alert for 2 hours");
    const pause = pauseOf(events);
    expect(pause).toMatchObject({
      interruptType: "confirm_risky",
      calls: [{ callId: "s1", tool: "alertmanager_create_silence" }],
    });
    expect((await silences()).filter((silence) => silence.comment.startsWith(args.comment))).toEqual([]);

    const resumed = await app.client.resume(threadId, {
      decisions: [{ callId: "s1", action: "approve", argsHash: pause.calls[0]!.argsHash }],
    });
    expect(resumed.find((event) => event.type === "tool_result")).toMatchObject({
      tool: "alertmanager_create_silence",
      ok: true,
    });
    const made = (await silences()).filter((silence) => silence.comment.startsWith(args.comment));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      status: { state: "active" },
      createdBy: "ann",
      comment: `${args.comment} [opspilot ${threadId}:s1]`,
      matchers: [
        { name: "alertname", value: "PaymentErrorsHigh", isRegex: false, isEqual: true },
        { name: "service", value: "payment-.*", isRegex: true, isEqual: true },
      ],
    });
    const minutes = (Date.parse(made[0]!.endsAt as string) - Date.parse(made[0]!.startsAt as string)) / 60_000;
    expect(Math.round(minutes)).toBe(120);
    expect(await app.observation(threadId, "s1")).toMatchObject({
      ok: true,
      data: {
        silenceId: made[0]!.id,
        created: true,
        createdBy: "ann",
        matchers: 'alertname="PaymentErrorsHigh", service=~"payment-.*"',
      },
    });
  });

  it("creates nothing when the silence is rejected", async () => {
    const args = {
      matchers: [{ name: "alertname", value: "PaymentErrorsHigh" }],
      durationMinutes: 30,
      comment: "rejected one",
    };
    const app = await serverWith([callsMessage([{ name: "alertmanager_create_silence", args, id: "s2" }])]);
    const { threadId, events } = await app.ask("silence it");
    expect(pauseOf(events).calls[0]).toMatchObject({ callId: "s2" });
    const resumed = await app.client.resume(threadId, {
      decisions: [{ callId: "s2", action: "reject", message: "no" }],
    });
    expect(resumed.find((event) => event.type === "tool_result")).toMatchObject({
      ok: false,
      errorCode: "rejected_by_user",
    });
    expect((await silences()).filter((silence) => silence.comment.startsWith("rejected one"))).toEqual([]);
  });

  it("lists the active silences that hold a text, with their matchers in PromQL notation", async () => {
    const silenceId = await silenceDirectly("ListMe", "listed one");
    await silenceDirectly("Other", "not listed");
    const app = await serverWith([
      callsMessage([{ name: "alertmanager_silences", args: { contains: "listme" }, id: "l1" }]),
    ]);
    const { threadId } = await app.ask("which silences are there?");
    expect(await app.observation(threadId, "l1")).toMatchObject({
      ok: true,
      data: {
        state: "active",
        count: 1,
        omitted: 0,
        silences: [
          { silenceId, state: "active", matchers: 'alertname="ListMe"', createdBy: "someone", comment: "listed one" },
        ],
      },
    });
  });

  it("expires a silence once approved, and says so when it already was", async () => {
    const silenceId = await silenceDirectly("ToExpire", "to expire");
    const app = await serverWith([
      callsMessage([{ name: "alertmanager_expire_silence", args: { silenceId }, id: "e1" }]),
      answerMessage("Expired."),
      callsMessage([{ name: "alertmanager_expire_silence", args: { silenceId }, id: "e2" }]),
    ]);
    const { threadId, events } = await app.ask("unsilence ToExpire");
    expect(pauseOf(events).calls[0]).toMatchObject({ tool: "alertmanager_expire_silence", args: { silenceId } });
    expect((await silences()).find((silence) => silence.id === silenceId)?.status.state).toBe("active");
    await app.client.resume(threadId, { decisions: [{ callId: "e1", action: "approve" }] });
    expect((await silences()).find((silence) => silence.id === silenceId)?.status.state).toBe("expired");
    expect(await app.observation(threadId, "e1")).toMatchObject({
      ok: true,
      data: { silenceId, state: "expired", matchers: 'alertname="ToExpire"', alreadyExpired: false },
    });

    const again = await app.client.run(threadId, "expire it again");
    expect(pauseOf(again).calls[0]).toMatchObject({ callId: "e2" });
    await app.client.resume(threadId, { decisions: [{ callId: "e2", action: "approve" }] });
    expect(await app.observation(threadId, "e2")).toMatchObject({
      ok: true,
      data: { silenceId, alreadyExpired: true },
    });
  });

  describe("run directly with a tool context", () => {
    const tools = () =>
      new Map(
        createToolsetTools({ alertmanager: { url: stack.alertmanagerUrl } }).map((tool): [string, ToolDefinition] => [
          tool.name,
          tool,
        ]),
      );
    const context = (callId: string, approvedBy?: string) => ({
      signal: new AbortController().signal,
      threadId: "direct",
      callId,
      idempotencyKey: `direct:${callId}`,
      user: { id: "alertmanager", role: "operator" },
      ...(approvedBy ? { approvedBy } : {}),
    });

    it("names the approver, not the run's user, as createdBy, and creates one silence per idempotency key", async () => {
      const create = tools().get("alertmanager_create_silence")!;
      const args = create.schema.parse({
        matchers: [{ name: "alertname", value: "Direct" }],
        durationMinutes: 10,
        comment: "direct create",
      });
      const first = (await create.run(args, context("c1", "bob"))) as { silenceId: string; created: boolean };
      const retried = (await create.run(args, context("c1", "bob"))) as { silenceId: string; created: boolean };
      const other = (await create.run(args, context("c2"))) as { silenceId: string; created: boolean };
      expect(first.created).toBe(true);
      expect(retried).toMatchObject({ silenceId: first.silenceId, created: false });
      expect(other.silenceId).not.toBe(first.silenceId);
      const made = (await silences()).filter((silence) => silence.comment.startsWith("direct create"));
      expect(made.map((silence) => [silence.id, silence.createdBy]).sort()).toEqual(
        [
          [first.silenceId, "bob"],
          [other.silenceId, "alertmanager"],
        ].sort(),
      );
    });

    it("answers not_found for a silence id Alertmanager does not hold", async () => {
      const expire = tools().get("alertmanager_expire_silence")!;
      const silenceId = "00000000-0000-4000-8000-000000000000";
      await expect(expire.run({ silenceId }, context("x1"))).rejects.toMatchObject({
        errorCode: "not_found",
        message: `Alertmanager has no silence ${silenceId}; list them with alertmanager_silences.`,
      });
    });
  });

  // Last: it stops Prometheus.
  it("gives transient once Prometheus is stopped", async () => {
    await stack.stopPrometheus();
    const app = await serverWith([callsMessage([{ name: "prometheus_query", args: { query: "up" }, id: "down" }])]);
    const { threadId, events } = await app.ask("is it up?");
    expect(finished(events)).toMatchObject({ stopReason: "final_answer" });
    expect(await app.observation(threadId, "down")).toEqual({
      ok: false,
      errorCode: "transient",
      message: "Prometheus could not be reached (ECONNREFUSED); it may be down or restarting.",
    });
  });
});
