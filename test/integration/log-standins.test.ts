import { Client, errors } from "@opensearch-project/opensearch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSearchStandin, type SearchStandin } from "../fixtures/elasticsearch-standin.js";
import { startLokiStandin, type LokiStandin } from "../fixtures/loki-standin.js";

/**
 * The stand-ins' faithfulness. Elasticsearch's: the official OpenSearch client reads every answer
 * of it, in both flavours. Loki has no official JavaScript client and logcli is not packaged for
 * Debian bookworm, so Loki's rests on its documented examples: these tests pin those shapes exactly.
 */
describe("the Elasticsearch stand-in, read by the official OpenSearch client", () => {
  let standin: SearchStandin;
  let opensearch: SearchStandin;
  beforeAll(async () => {
    standin = await startSearchStandin();
    opensearch = await startSearchStandin({ flavour: "opensearch" });
  });
  afterAll(async () => {
    await standin.close();
    await opensearch.close();
  });

  it("answers info, a search with a terms aggregation and a mapping as the client expects, in both flavours", async () => {
    for (const [server, version] of [
      [standin, { number: "8.15.0" }],
      [opensearch, { distribution: "opensearch", number: "2.17.0" }],
    ] as const) {
      const client = new Client({ node: server.url, maxRetries: 0 });
      expect((await client.info()).body.version).toMatchObject(version);
      const found = await client.search({
        index: "logs-*",
        body: {
          size: 2,
          track_total_hits: true,
          query: { bool: { must: [{ query_string: { query: "service.name:checkout AND x509" } }], filter: [] } },
          aggs: { top: { terms: { field: "log.level", size: 5 } } },
          // The client's generated types name a terms aggregation's fields differently from the JSON it sends.
        } as never,
      });
      expect(found.statusCode).toBe(200);
      expect(found.body.hits.total).toEqual({ value: 1, relation: "eq" });
      expect(found.body.hits.hits[0]!._source).toMatchObject({
        log: { level: "error" },
        service: { name: "checkout" },
      });
      expect(found.body.aggregations).toEqual({
        top: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: "error", doc_count: 1 }] },
      });
      const mapping = await client.indices.getMapping({ index: "logs-*" });
      expect(Object.values(mapping.body)[0]!.mappings.properties!["@timestamp"]).toEqual({ type: "date" });
      await client.close();
    }
  });

  it("reports a bad query, missing credentials and a missing index as the client's ResponseError with the server's body", async () => {
    const client = new Client({ node: standin.url, maxRetries: 0 });
    const bad = await client
      .search({ index: "logs-*", body: { query: { bool: { must: [{ query_string: { query: "(" } }] } } } })
      .catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(errors.ResponseError);
    expect((bad as errors.ResponseError).statusCode).toBe(400);
    expect((bad as errors.ResponseError).message).toBe(
      "search_phase_execution_exception: [query_shard_exception] Reason: Failed to parse query [(]",
    );
    const missing = await client.indices.getMapping({ index: "nope" }).catch((error: unknown) => error);
    expect((missing as errors.ResponseError).statusCode).toBe(404);
    const guarded = await startSearchStandin({ authorization: "Basic dTpw" });
    try {
      const refused = await new Client({ node: guarded.url, maxRetries: 0 }).info().catch((error: unknown) => error);
      expect((refused as errors.ResponseError).statusCode).toBe(401);
      expect((refused as errors.ResponseError).message).toMatch(
        /^security_exception: \[security_exception\] Reason: missing authentication credentials/,
      );
      const allowed = new Client({ node: guarded.url, maxRetries: 0, headers: { authorization: "Basic dTpw" } });
      expect((await allowed.info()).statusCode).toBe(200);
    } finally {
      await guarded.close();
    }
    await client.close();
  });
});

describe("the Loki stand-in, against Loki's documented HTTP API", () => {
  let loki: LokiStandin;
  const now = Date.now();
  const nanos = (milliseconds: number) => (BigInt(milliseconds) * 1_000_000n).toString();
  beforeAll(async () => {
    loki = await startLokiStandin({ now });
  });
  afterAll(async () => {
    await loki.close();
  });
  const get = async (path: string, query: Record<string, string> = {}) => {
    const response = await fetch(`${loki.url}${path}?${new URLSearchParams(query)}`);
    return { status: response.status, type: response.headers.get("content-type"), body: await response.text() };
  };

  it("answers query_range with a streams envelope: stream labels and [nanosecond string, line] pairs, newest first", async () => {
    const answer = await get("/loki/api/v1/query_range", {
      query: '{app="checkout"} |= "x509"',
      start: nanos(now - 3_600_000),
      end: nanos(now),
      limit: "10",
    });
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.body) as {
      status: string;
      data: { resultType: string; result: unknown[]; stats: object };
    };
    expect(body.status).toBe("success");
    expect(body.data.resultType).toBe("streams");
    expect(body.data.result).toEqual([
      {
        stream: { namespace: "shop", app: "checkout", service: "checkout", level: "error" },
        values: [[nanos(now - 2_000 - 1_234 * 1_000), expect.stringMatching(/^x509: certificate has expired/)]],
      },
    ]);
    expect(Object.keys(body.data.stats)).toEqual(["summary"]);
  });

  it("answers a metric query with a matrix of [unix seconds, value string] and labels with a list", async () => {
    const answer = await get("/loki/api/v1/query_range", {
      query: 'sum by (app) (count_over_time({app="checkout"} |= "x509" [1h]))',
      start: String((now - 60_000) / 1000),
      end: String(now / 1000),
      step: "60",
    });
    const body = JSON.parse(answer.body) as {
      data: { resultType: string; result: Array<{ metric: object; values: unknown[] }> };
    };
    expect(body.data.resultType).toBe("matrix");
    expect(body.data.result[0]).toEqual({
      metric: { app: "checkout" },
      values: [
        [(now - 60_000) / 1000, "1"],
        [now / 1000, "1"],
      ],
    });
    expect(JSON.parse((await get("/loki/api/v1/label/namespace/values")).body)).toEqual({
      status: "success",
      data: ["auth", "data", "ops", "payments", "shop"],
    });
  });

  it("answers a bad query and a limit past max_entries_limit_per_query with 400 and a text body, as Loki does", async () => {
    expect(await get("/loki/api/v1/query_range", { query: "app=checkout" })).toEqual({
      status: 400,
      type: "text/plain; charset=utf-8",
      body: "parse error at line 1, col 1: syntax error: unexpected IDENTIFIER",
    });
    expect((await get("/loki/api/v1/query_range", { query: '{app="x"}', limit: "5001" })).body).toBe(
      "max entries limit per query exceeded, limit > max_entries_limit (5001 > 5000)",
    );
  });
});
