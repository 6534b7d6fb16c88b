import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config/file.js";
import { ConfigError } from "../../../src/contracts/errors.js";
import { alertLogCalls, fillAlertQuery } from "../../../src/tools/toolsets/alert-log-queries.js";
import { createToolsetTools } from "../../../src/tools/toolsets/index.js";

function problem(value: unknown): string {
  try {
    parseConfig(value, {});
    return "";
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

const toolNames = (toolsets: Record<string, unknown>) =>
  createToolsetTools(parseConfig({ demo: false, toolsets }, {}).toolsets ?? {}).map((tool) => tool.name);

describe("the log toolsets' config", () => {
  it("registers Loki's and Elasticsearch's reads, all read-only and untrusted", () => {
    const tools = createToolsetTools(
      parseConfig({ toolsets: { loki: { url: "http://loki:3100" }, elasticsearch: { url: "http://es:9200" } } }, {})
        .toolsets!,
    );
    expect(tools.map((tool) => [tool.name, tool.readOnly, tool.risk, tool.trusted ?? false])).toEqual([
      ["loki_query", true, "low", false],
      ["loki_metric_query", true, "low", false],
      ["loki_labels", true, "low", false],
      ["elasticsearch_search", true, "low", false],
      ["elasticsearch_aggregate", true, "low", false],
      ["elasticsearch_fields", true, "low", false],
    ]);
    expect(
      toolNames({
        loki: [
          { name: "prod", url: "http://a:3100" },
          { name: "dev", url: "http://b:3100" },
        ],
      }),
    ).toEqual(["loki_query", "loki_metric_query", "loki_labels"]);
  });

  it("names the problem of a bad instance or list in one line", () => {
    expect(problem({ toolsets: { loki: { url: "loki:3100" } } })).toBe(
      "opspilot.config.json: toolsets.loki.url: must be an http(s) URL",
    );
    expect(problem({ toolsets: { elasticsearch: [{ url: "http://es:9200" }] } })).toBe(
      "opspilot.config.json: toolsets.elasticsearch[0].name: is required",
    );
    expect(
      problem({
        toolsets: {
          loki: [
            { name: "prod", url: "http://a:3100" },
            { name: "prod", url: "http://b:3100" },
          ],
        },
      }),
    ).toBe('opspilot.config.json: toolsets.loki[1].name: "prod" is named twice');
    expect(problem({ toolsets: { loki: { url: "http://a:3100", maxLines: 500_000 } } })).toBe(
      "opspilot.config.json: toolsets.loki.maxLines: must be at most 200000",
    );
  });
});

describe("an alert's first log query", () => {
  const labels = { alertname: "PaymentErrors", service: "payment-service", namespace: "payments" };

  it("fills $labels from the alert, falls back from service to app and job, and gives none when a label is missing", () => {
    expect(fillAlertQuery('{namespace="$namespace", app="$service"} |= "error"', labels)).toBe(
      '{namespace="payments", app="payment-service"} |= "error"',
    );
    expect(fillAlertQuery('{app="$app"}', { job: "api", service: 'say "hi"' })).toBe('{app="say \\"hi\\""}');
    expect(fillAlertQuery('{app="$service"}', { job: "api" })).toBe('{app="api"}');
    expect(fillAlertQuery('{namespace="$namespace"}', { service: "x" })).toBeUndefined();
  });

  it("reads from 15 minutes before the alert started, one call per log toolset, defaults when no query is configured", () => {
    const config = parseConfig(
      { toolsets: { loki: { url: "http://loki:3100" }, elasticsearch: { url: "http://es:9200" } } },
      {},
    );
    expect(alertLogCalls(config.toolsets!, { labels, startsAt: "2026-12-05T10:00:00Z" })).toEqual([
      {
        tool: "loki_query",
        args: {
          query: '{namespace="payments", service="payment-service"} |~ "(?i)error"',
          start: "2026-12-05T09:45:00.000Z",
        },
      },
      {
        tool: "elasticsearch_search",
        args: { query: 'service.name:"payment-service"', start: "2026-12-05T09:45:00.000Z" },
      },
    ]);
    expect(alertLogCalls(config.toolsets!, { labels: { alertname: "Disk" } })).toEqual([]);
  });
});
