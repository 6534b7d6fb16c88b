import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/file.js";
import type { LogDigest } from "../../src/tools/toolsets/log-shaping/digest.js";
import { createToolsetTools } from "../../src/tools/toolsets/index.js";
import type { ToolDefinition } from "../../src/tools/types.js";
import { startSearchStandin, type SearchStandin } from "../fixtures/elasticsearch-standin.js";
import { CANARIES, FLOOD_LINES, INJECTION } from "../fixtures/log-scenarios.js";
import { startLokiStandin, type LokiStandin } from "../fixtures/loki-standin.js";

let loki: LokiStandin;
let search: SearchStandin;
/** The instant the stand-ins' scenarios are relative to, and a window start before all of their lines. */
const now = Date.now();
const TWO_HOURS_AGO = new Date(now - 2 * 3_600_000).toISOString();

beforeAll(async () => {
  loki = await startLokiStandin({ tenant: "team-a", now });
  search = await startSearchStandin({ authorization: "ApiKey c3RhbmRpbg==", now });
});
afterAll(async () => {
  await loki.close();
  await search.close();
});

/** The log tools of a config's `toolsets`, by name. */
function toolsOf(toolsets: Record<string, unknown>): Map<string, ToolDefinition> {
  const config = parseConfig({ demo: false, toolsets }, {});
  return new Map(createToolsetTools(config.toolsets ?? {}).map((tool) => [tool.name, tool]));
}

const lokiTools = (extra: Record<string, unknown> = {}) =>
  toolsOf({ loki: { url: loki.url, tenant: "team-a", ...extra } });
const searchTools = (extra: Record<string, unknown> = {}) =>
  toolsOf({
    elasticsearch: { url: search.url, headers: { Authorization: "ApiKey c3RhbmRpbg==" }, index: "logs-*", ...extra },
  });

/** Runs a tool as the executor would: arguments through its schema, a fresh signal, the default observation cap. */
async function call(tools: Map<string, ToolDefinition>, name: string, args: Record<string, unknown>) {
  const tool = tools.get(name)!;
  return tool.run(tool.schema.parse(args), {
    signal: new AbortController().signal,
    threadId: "t",
    callId: "c",
    idempotencyKey: "t:c",
    user: { id: "u", role: "operator" },
    observationMaxChars: 4_000,
  });
}

const total = (digest: LogDigest) =>
  digest.patterns.reduce((sum, pattern) => sum + pattern.count, 0) + digest.omittedLines;

describe("the Loki toolset against the Loki stand-in", () => {
  it("folds a payment service's timeouts after a deploy into patterns, errors first, with the deploy line among them", async () => {
    const digest = (await call(lokiTools(), "loki_query", {
      query: '{namespace="payments", app="payment-service"}',
      start: TWO_HOURS_AGO,
    })) as LogDigest;
    expect(digest).toMatchObject({ source: "Loki", linesRead: 720, limitReached: false, omittedPatterns: 0 });
    expect(digest.patterns.map((pattern) => [pattern.level, pattern.pattern])).toEqual([
      ["error", "charge failed for order <id>: upstream bank-gateway timeout after <n>"],
      ["info", "POST /v1/charge <n> in <n> order=<id>"],
      ["info", "deploy payment-service <id> rolled out (image payment-service:<n>)"],
    ]);
    expect(digest.byLevel).toEqual({ error: digest.patterns[0]!.count, info: 720 - digest.patterns[0]!.count });
    expect(Date.parse(digest.patterns[0]!.firstSeen)).toBeGreaterThan(Date.parse(digest.patterns[2]!.firstSeen));
    expect(digest.patterns[0]!.examples[0]).toMatch(/^charge failed for order ord_\d+: upstream bank-gateway timeout/);
    expect(total(digest)).toBe(720);
    expect(loki.requests.at(-1)!.headers["x-scope-orgid"]).toBe("team-a");
  });

  it("puts the one rare error of a noisy log first", async () => {
    const digest = (await call(lokiTools(), "loki_query", {
      query: '{app="checkout"}',
      start: TWO_HOURS_AGO,
    })) as LogDigest;
    expect(digest.patterns[0]).toMatchObject({
      level: "error",
      count: 1,
      pattern: expect.stringMatching(/^x509: certificate has expired/),
    });
    expect(digest.patterns[1]).toMatchObject({ level: "warn", count: 2_999 });
  });

  it("reads 200,000 matching lines into at most the configured bytes, with counts that add up to every line", async () => {
    const tools = lokiTools({ maxLines: 200_000, maxBytes: 2_000 });
    const started = Date.now();
    const digest = (await call(tools, "loki_query", { query: '{app="ingest"}', start: TWO_HOURS_AGO })) as LogDigest;
    expect(Buffer.byteLength(JSON.stringify(digest))).toBeLessThanOrEqual(2_000);
    expect(digest.linesRead).toBe(FLOOD_LINES);
    expect(digest.byLevel).toEqual({ error: 20_000, warn: 60_000, info: 120_000 });
    expect(digest.patterns.map((pattern) => [pattern.level, pattern.count, pattern.pattern])).toEqual([
      ["error", 20_000, "failed to write batch <n>: connection reset by peer"],
      ["warn", 60_000, "slow flush of batch <n> took <n>"],
      ["info", 120_000, "flushed batch <n> with <n> rows"],
    ]);
    expect(total(digest)).toBe(FLOOD_LINES);
    // 40 pages of Loki's 5000-line limit, each starting where the last one ended.
    expect(loki.requests.filter((request) => request.params.query === '{app="ingest"}')).toHaveLength(41);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);

  it("states the cut when the line limit stops the read, and keeps the default budget", async () => {
    const digest = (await call(lokiTools(), "loki_query", { query: '{app="ingest"}', limit: 1_000 })) as LogDigest;
    expect(digest).toMatchObject({ linesRead: 1_000, limitReached: true });
    expect(digest.cut).toBe(
      "The read stopped at the line limit (1000): more lines may match; narrow the query or the window.",
    );
    expect(Buffer.byteLength(JSON.stringify(digest))).toBeLessThanOrEqual(3_500);
  });

  it("masks a secret in a line before it is folded: no canary in the result", async () => {
    const digest = await call(lokiTools(), "loki_query", { query: '{app="auth"}', start: TWO_HOURS_AGO });
    const text = JSON.stringify(digest);
    for (const canary of Object.values(CANARIES)) expect(text).not.toContain(canary);
    expect(text).toContain("login failed with aws key [key masked] and api key [key masked]");
    expect(text).toContain("rejected token [token masked] for user <n>");
  });

  it("counts lines over time with a metric query, and lists labels and their values", async () => {
    const tools = lokiTools();
    const table = (await call(tools, "loki_metric_query", {
      query: 'sum by (level) (count_over_time({app="payment-service"} |= "timeout" [5m]))',
      start: TWO_HOURS_AGO,
      step: "5m",
    })) as { seriesCount: number; series: Array<{ series: string; max: number }> };
    expect(table.seriesCount).toBe(1);
    expect(table.series[0]).toMatchObject({ series: '{level="error"}', max: 40 });
    expect(await call(tools, "loki_labels", {})).toMatchObject({
      label: "label names",
      values: ["app", "namespace", "service"],
    });
    expect(await call(tools, "loki_labels", { label: "app", match: '{namespace=~"pay.*|shop"}' })).toMatchObject({
      total: 2,
      values: ["checkout", "payment-service"],
    });
  });

  it("gives invalid_args with Loki's own message for bad LogQL, and for a metric query in loki_query", async () => {
    const tools = lokiTools();
    await expect(call(tools, "loki_query", { query: '{app="a" |= "x"' })).rejects.toMatchObject({
      errorCode: "invalid_args",
      message: "Loki: parse error at line 1, col 16: syntax error: unexpected $end, expecting } or ,",
    });
    await expect(call(tools, "loki_query", { query: 'count_over_time({app="checkout"}[5m])' })).rejects.toMatchObject({
      errorCode: "invalid_args",
      message: expect.stringContaining("use loki_metric_query"),
    });
  });

  it("maps 401, a time-out, 5xx and 429 to permission_denied, timeout, transient and rate_limited", async () => {
    await expect(call(toolsOf({ loki: { url: loki.url } }), "loki_labels", {})).rejects.toMatchObject({
      errorCode: "permission_denied",
      message: "Loki refused the request (HTTP 401): check the headers of toolsets.loki in opspilot.config.json.",
    });
    const tools = lokiTools({ timeoutMs: 300 });
    loki.failNext("hang");
    await expect(call(tools, "loki_labels", {})).rejects.toMatchObject({
      errorCode: "timeout",
      message: "Loki did not answer within 300 ms.",
    });
    loki.failNext(502);
    await expect(call(tools, "loki_query", { query: '{app="x"}' })).rejects.toMatchObject({
      errorCode: "transient",
      message: "Loki failed temporarily (HTTP 502: internal error); try again shortly.",
    });
    loki.failNext(429);
    await expect(call(tools, "loki_labels", {})).rejects.toMatchObject({ errorCode: "rate_limited" });
  });

  it("offers an instance argument naming each Loki when several are configured", async () => {
    const other = await startLokiStandin();
    try {
      const tools = toolsOf({
        loki: [
          { name: "prod", url: loki.url, tenant: "team-a" },
          { name: "staging", url: other.url },
        ],
      });
      const tool = tools.get("loki_labels")!;
      expect(tool.schema.shape.instance!.def).toMatchObject({ defaultValue: "prod" });
      await call(tools, "loki_labels", { instance: "staging" });
      expect(other.requests).toHaveLength(1);
      expect(() => tool.schema.parse({ instance: "dev" })).toThrow();
      expect(await call(tools, "loki_labels", {})).toMatchObject({ source: "Loki prod" });
    } finally {
      await other.close();
    }
  });
});

describe("the Elasticsearch toolset against the Elasticsearch stand-in, through the OpenSearch client", () => {
  it("searches with a query string and a filter, folds the hits and reports the total the cluster counts", async () => {
    const digest = (await call(searchTools(), "elasticsearch_search", {
      query: "timeout",
      filters: { "service.name": "payment-service" },
      start: TWO_HOURS_AGO,
    })) as LogDigest;
    expect(digest).toMatchObject({ source: "Elasticsearch", linesMatched: digest.linesRead, limitReached: false });
    expect(digest.patterns).toEqual([
      expect.objectContaining({
        level: "error",
        count: digest.linesRead,
        pattern: "charge failed for order <id>: upstream bank-gateway timeout after <n>",
      }),
    ]);
    const body = search.requests.at(-1)!.body as { query: unknown; sort: unknown };
    expect(body.query).toMatchObject({
      bool: {
        must: [{ query_string: { query: "timeout" } }],
        filter: [{ range: {} }, { term: { "service.name": "payment-service" } }],
      },
    });
  });

  it("pages 200,000 hits with search_after into at most the configured bytes, counts adding up", async () => {
    const tools = searchTools({ maxLines: 200_000, maxBytes: 1_500 });
    const digest = (await call(tools, "elasticsearch_search", {
      filters: { "service.name": "ingest" },
      start: TWO_HOURS_AGO,
    })) as LogDigest;
    expect(Buffer.byteLength(JSON.stringify(digest))).toBeLessThanOrEqual(1_500);
    expect(digest).toMatchObject({ linesRead: FLOOD_LINES, linesMatched: FLOOD_LINES, limitReached: false });
    expect(digest.byLevel).toEqual({ error: 20_000, warn: 60_000, info: 120_000 });
    expect(total(digest)).toBe(FLOOD_LINES);
  }, 60_000);

  it("aggregates the top values of a field and lists the index's fields", async () => {
    const tools = searchTools();
    expect(
      await call(tools, "elasticsearch_aggregate", { field: "log.level", query: "order", start: TWO_HOURS_AGO }),
    ).toMatchObject({ field: "log.level", total: 719, values: [{ value: "info" }, { value: "error" }], otherCount: 0 });
    const fields = (await call(tools, "elasticsearch_fields", { contains: "level" })) as { fields: unknown[] };
    expect(fields.fields).toEqual([{ field: "log.level", type: "keyword" }]);
  });

  it("gives invalid_args with the cluster's reason, permission_denied, not_found, timeout, transient and rate_limited", async () => {
    const tools = searchTools({ timeoutMs: 300 });
    await expect(call(tools, "elasticsearch_search", { query: 'message:"unclosed' })).rejects.toMatchObject({
      errorCode: "invalid_args",
      message: 'Elasticsearch: query_shard_exception: Failed to parse query [message:"unclosed]',
    });
    await expect(
      call(toolsOf({ elasticsearch: { url: search.url } }), "elasticsearch_fields", {}),
    ).rejects.toMatchObject({
      errorCode: "permission_denied",
      message:
        "Elasticsearch refused the request (HTTP 401): check the headers of toolsets.elasticsearch in opspilot.config.json.",
    });
    await expect(call(tools, "elasticsearch_fields", { index: "metrics-*" })).rejects.toMatchObject({
      errorCode: "not_found",
      message: "Elasticsearch: index_not_found_exception: no such index [metrics-*]",
    });
    search.failNext("hang");
    await expect(call(tools, "elasticsearch_fields", {})).rejects.toMatchObject({
      errorCode: "timeout",
      message: "Elasticsearch did not answer within 300 ms.",
    });
    search.failNext(503);
    await expect(call(tools, "elasticsearch_fields", {})).rejects.toMatchObject({ errorCode: "transient" });
    search.failNext(429);
    await expect(call(tools, "elasticsearch_fields", {})).rejects.toMatchObject({ errorCode: "rate_limited" });
  });

  it("masks the canary secrets and keeps the injected line as data", async () => {
    const text = JSON.stringify(
      await call(searchTools(), "elasticsearch_search", {
        query: "service.name:auth OR service.name:notifier",
        start: TWO_HOURS_AGO,
      }),
    );
    for (const canary of Object.values(CANARIES)) expect(text).not.toContain(canary);
    expect(text).toContain(`template render failed: ${INJECTION}`);
  });
});
