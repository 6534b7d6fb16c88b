import { mkdtemp, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import {
  createRunbookSource,
  createSearchDocsTool,
  type RunbookProblem,
  type RunbookSource,
  type RunbookSourceOptions,
} from "../../../src/tools/index.js";
import { parseRunbook } from "../../../src/tools/runbooks/markdown.js";
import { demoRunbookDocuments } from "../../../src/demo/index.js";
import { createHarness, shape } from "../../fixtures/harness.js";
import { makeContext } from "./helpers.js";

const DB_POOL = `---
title: Payment DB pool exhaustion
services: [payment-service]
tags: [database, connection pool]
---
# Payment DB pool exhaustion

Requests to payment-service wait for a database connection.

## Symptoms

- \`DB_POOL_EXHAUSTED\` errors in the payment logs.
- p95 latency above two seconds.

## Mitigation

1. Kill queries running longer than 30 seconds.
2. Pause the reconciliation batch job; it holds twenty connections.
3. If the pool stays saturated, restart one instance at a time.
`;

const CERT_EXPIRY = `# 网关证书过期

## 现象

调用方报 TLS 握手失败，网关日志出现 CERT_EXPIRED。

## 处理步骤

1. 在密钥管理平台续签证书。
2. 逐个重载网关实例，不要同时重启全部实例。
`;

const REINDEX = `---
title: 搜索索引重建
services: search-service
tags: 索引, 重建, reindex
---
## 何时重建

查询结果缺失或排序异常，且索引延迟超过十分钟。

## 步骤

1. 暂停写入队列消费者。
2. 在从节点上全量重建索引，完成后切换别名。
`;

type Hit = { id: string; [field: string]: unknown };

let folder: string;
let problems: RunbookProblem[];
const sources: RunbookSource[] = [];

/** A started source over the test folder that records what it reports. */
async function openSource(options: Partial<RunbookSourceOptions> = {}): Promise<RunbookSource> {
  const source = createRunbookSource({ folder, pollMs: 0, report: (problem) => problems.push(problem), ...options });
  sources.push(source);
  await source.start();
  return source;
}

/** Runs `search_docs` over a source the way the executor does (arguments parsed first). */
async function searchDocs(source: RunbookSource, query: string, limit?: number): Promise<Hit[]> {
  const tool = createSearchDocsTool(source);
  const result = (await tool.run(tool.schema.parse({ query, limit }), makeContext())) as { results: Hit[] };
  return result.results;
}

const ids = (hits: Hit[]) => hits.map((hit) => hit.id);

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), "opspilot-runbooks-"));
  await mkdir(join(folder, "payments"));
  await mkdir(join(folder, "gateway"));
  await mkdir(join(folder, "search"));
  await writeFile(join(folder, "payments/db-pool.md"), DB_POOL);
  await writeFile(join(folder, "gateway/cert-expiry.md"), CERT_EXPIRY);
  await writeFile(join(folder, "search/reindex.md"), REINDEX);
  problems = [];
});

afterEach(async () => {
  await Promise.all(sources.splice(0).map((source) => source.close()));
  await rm(folder, { recursive: true, force: true });
});

describe("search_docs over a runbooks folder", () => {
  it("finds an English section by an English question and cites its path and heading", async () => {
    const source = await openSource();
    const hits = await searchDocs(source, "payment pool exhausted, how to mitigate");
    expect(ids(hits)).toEqual([
      "payments/db-pool.md#mitigation",
      "payments/db-pool.md#payment-db-pool-exhaustion",
      "payments/db-pool.md#symptoms",
    ]);
    expect(hits[0]).toEqual({
      id: "payments/db-pool.md#mitigation",
      title: "Payment DB pool exhaustion",
      path: "payments/db-pool.md",
      heading: "Mitigation",
      line: 15,
      score: 4.137,
      services: ["payment-service"],
      tags: ["database", "connection pool"],
      snippet:
        "1. Kill queries running longer than 30 seconds.\n" +
        "2. Pause the reconciliation batch job; it holds twenty connections.\n" +
        "3. If the pool stays saturated, restart one instance at a time.",
    });
  });

  it("finds a Chinese file without front matter by a Chinese question, titled by its first heading", async () => {
    const source = await openSource();
    const hits = await searchDocs(source, "网关证书过期怎么处理");
    expect(ids(hits)).toEqual(["gateway/cert-expiry.md#处理步骤", "gateway/cert-expiry.md#现象"]);
    expect(hits[0]).toMatchObject({
      title: "网关证书过期",
      path: "gateway/cert-expiry.md",
      heading: "处理步骤",
      line: 7,
      services: [],
      tags: [],
      snippet: "1. 在密钥管理平台续签证书。\n2. 逐个重载网关实例，不要同时重启全部实例。",
    });
  });

  it("reads title, services and tags from front matter, a comma list included, and finds the file by a tag", async () => {
    const source = await openSource();
    const hits = await searchDocs(source, "reindex", 1);
    expect(hits).toEqual([
      {
        id: "search/reindex.md#何时重建",
        title: "搜索索引重建",
        path: "search/reindex.md",
        heading: "何时重建",
        line: 6,
        score: 1.391,
        services: ["search-service"],
        tags: ["索引", "重建", "reindex"],
        snippet: "查询结果缺失或排序异常，且索引延迟超过十分钟。",
      },
    ]);
    expect(source.status()).toEqual({ folder, files: 3, sections: 7, problems: [] });
  });

  it("finds the runbooks whose front matter lists an alert, whatever its case", async () => {
    await writeFile(
      join(folder, "payments/pool-alerts.md"),
      "---\ntitle: Pool alerts\nalerts: [PaymentDbPoolExhausted, DbPoolSaturation]\n---\nSee db-pool.md.\n",
    );
    const source = await openSource();
    expect(source.forAlert("PaymentDbPoolExhausted").map((file) => file.path)).toEqual(["payments/pool-alerts.md"]);
    expect(source.forAlert("dbpoolsaturation").map((file) => file.title)).toEqual(["Pool alerts"]);
    expect(source.forAlert("PaymentDbPool")).toEqual([]);
    expect(source.forAlert("reindex")).toEqual([]);
  });

  it("ranks folder sections together with the demo runbooks when the demo is on", async () => {
    const source = await openSource({ documents: demoRunbookDocuments() });
    const hits = await searchDocs(source, "PAY-5031 DB_POOL_EXHAUSTED", 4);
    expect(ids(hits)).toEqual([
      "RB-003",
      "payments/db-pool.md#symptoms",
      "RB-002",
      "payments/db-pool.md#payment-db-pool-exhaustion",
    ]);
    expect(hits[0]).toMatchObject({
      title: "Payment service errors: upstream bank gateway timeout and DB pool exhaustion",
    });
    expect(ids(await searchDocs(source, "网关证书过期怎么处理", 3))).toEqual([
      "gateway/cert-expiry.md#处理步骤",
      "gateway/cert-expiry.md#现象",
      "RB-016",
    ]);
  });

  it("searches the folder alone when the demo is off", async () => {
    const source = await openSource();
    expect(ids(await searchDocs(source, "支付服务 报错 处理"))).toEqual(["gateway/cert-expiry.md#处理步骤"]);
    expect(await searchDocs(source, "quantum entanglement")).toEqual([]);
  });
});

describe("keeping the runbooks folder indexed", () => {
  it("re-indexes changed, added and deleted files on its own", async () => {
    const source = await openSource({ pollMs: 20 });
    expect(await searchDocs(source, "回滚")).toEqual([]);
    await writeFile(
      join(folder, "gateway/cert-expiry.md"),
      `${CERT_EXPIRY}\n## 回滚\n\n新证书有问题时，回滚证书并重载网关。\n`,
    );
    await writeFile(join(folder, "payments/refunds.md"), "# Refund backlog\n\nDrain the refund queue slowly.\n");
    await rm(join(folder, "search/reindex.md"));
    // A look may fall between two of the writes: wait until all three are in.
    await vi.waitFor(async () => {
      expect(ids(await searchDocs(source, "回滚"))).toEqual(["gateway/cert-expiry.md#回滚"]);
      expect(ids(await searchDocs(source, "refund queue"))).toEqual(["payments/refunds.md#refund-backlog"]);
      expect(await searchDocs(source, "reindex")).toEqual([]);
    });
    expect(source.status()).toMatchObject({ files: 3, sections: 7 });
    expect(problems).toEqual([]);
  });

  it("reports a bad front matter once and still indexes the file's text", async () => {
    await writeFile(join(folder, "worker.md"), "---\ntitle: [unclosed\n---\n## Steps\n\nRestart the billing worker.\n");
    const source = await openSource();
    const problem = {
      code: "front_matter",
      path: "worker.md",
      message:
        "front matter is not valid YAML at line 2: Flow sequence in block collection must be sufficiently indented " +
        "and end with a ]; the file is indexed without it",
    };
    expect(problems).toEqual([problem]);
    expect(await searchDocs(source, "billing worker")).toEqual([
      expect.objectContaining({ id: "worker.md#steps", title: "worker", heading: "Steps", line: 4 }),
    ]);
    expect(ids(await searchDocs(source, "网关证书过期", 1))).toEqual(["gateway/cert-expiry.md#现象"]);

    expect(await source.refresh()).toBe(false);
    expect(problems).toHaveLength(1);
    expect(source.status().problems).toEqual([problem]);

    await writeFile(
      join(folder, "worker.md"),
      "---\ntitle: Billing worker\nservices:\n  owner: billing\n---\n## Steps\n\nRestart it.\n",
    );
    expect(await source.refresh()).toBe(true);
    expect(problems.at(-1)).toEqual({
      code: "front_matter",
      path: "worker.md",
      message: "front matter services must be a text or a list of texts; the file is indexed without it",
    });

    await writeFile(
      join(folder, "worker.md"),
      "---\ntitle: Billing worker\n---\n## Steps\n\nRestart the billing worker.\n",
    );
    await source.refresh();
    expect(source.status().problems).toEqual([]);
    expect(await searchDocs(source, "billing worker")).toEqual([
      expect.objectContaining({ id: "worker.md#steps", title: "Billing worker" }),
    ]);
  });

  it("reports an unreadable file and indexes the rest", async () => {
    await symlink(join(folder, "missing-target.md"), join(folder, "broken.md"));
    const source = await openSource();
    expect(problems).toEqual([{ code: "unreadable", path: "broken.md", message: "cannot be read (ENOENT)" }]);
    expect(source.status()).toMatchObject({ files: 3, sections: 7 });
  });

  it("goes on without a deleted folder and picks it up again when it comes back", async () => {
    const source = await openSource({ documents: demoRunbookDocuments() });
    await rm(folder, { recursive: true });
    expect(await source.refresh()).toBe(true);
    expect(problems).toEqual([
      { code: "folder_missing", path: ".", message: `runbooks folder ${folder} cannot be opened (ENOENT)` },
    ]);
    expect(ids(await searchDocs(source, "网关证书过期", 1))).toEqual(["RB-016"]);

    await mkdir(join(folder, "gateway"), { recursive: true });
    await writeFile(join(folder, "gateway/cert-expiry.md"), CERT_EXPIRY);
    expect(await source.refresh()).toBe(true);
    expect(ids(await searchDocs(source, "网关证书过期", 1))).toEqual(["gateway/cert-expiry.md#现象"]);
    expect(source.status().problems).toEqual([]);
  });

  it("starts on a folder that does not exist yet, reporting it", async () => {
    await rm(folder, { recursive: true });
    const source = await openSource();
    expect(problems.map((problem) => problem.code)).toEqual(["folder_missing"]);
    expect(await searchDocs(source, "payment pool")).toEqual([]);
  });

  it("closes cleanly: drops its index and leaves the owner's database open", async () => {
    const db = new Database(":memory:");
    const source = await openSource({ db, pollMs: 10 });
    expect(db.prepare("SELECT count(*) AS count FROM sqlite_temp_master WHERE type = 'table'").get()).not.toEqual({
      count: 0,
    });
    await source.close();
    expect(db.prepare("SELECT count(*) AS count FROM sqlite_temp_master").get()).toEqual({ count: 0 });
    expect(db.open).toBe(true);
    expect(source.searchDocs("payment pool")).toEqual([]);
    await source.close();
    db.close();
  });
});

describe("splitting a runbook into sections", () => {
  it("splits at headings down to ###, keeping fenced code and deeper headings inside a section", () => {
    const text = [
      "Intro before any heading.",
      "",
      "# Queue backlog",
      "",
      "Setext heading",
      "--------------",
      "Under it.",
      "",
      "```sh",
      "# not a heading",
      "```",
      "### Steps ###",
      "1. Drain.",
      "#### Detail",
      "Still steps.",
      "### Steps",
      "Again.",
    ].join("\r\n");
    expect(parseRunbook("ops/queue.md", text)).toEqual({
      file: {
        path: "ops/queue.md",
        title: "Queue backlog",
        services: [],
        tags: [],
        alerts: [],
        sections: [
          { id: "ops/queue.md", heading: "Queue backlog", line: 1, text: "Intro before any heading." },
          {
            id: "ops/queue.md#setext-heading",
            heading: "Setext heading",
            line: 5,
            text: "Under it.\n\n```sh\n# not a heading\n```",
          },
          { id: "ops/queue.md#steps", heading: "Steps", line: 12, text: "1. Drain.\n#### Detail\nStill steps." },
          { id: "ops/queue.md#steps-1", heading: "Steps", line: 16, text: "Again." },
        ],
      },
    });
  });
});

describe("search_docs through the loop", () => {
  it("gives the model an observation that cites the folder runbook's path and heading", async () => {
    const source = await openSource();
    const harness = createHarness({
      tools: [createSearchDocsTool(source)],
      script: [
        callsMessage([{ name: "search_docs", args: { query: "网关证书过期怎么处理", limit: 1 }, id: "d1" }]),
        answerMessage("按 gateway/cert-expiry.md 的“处理步骤”续签证书。"),
      ],
    });
    const { messages } = await harness.ask("网关证书过期了怎么办？");
    expect(shape(messages)).toEqual(["human", "ai:search_docs", "tool:search_docs:ok", "ai"]);
    const observation = JSON.parse(String(messages[2]!.content)) as { data: { results: Hit[] } };
    expect(observation.data.results.map((hit) => [hit.path, hit.heading])).toEqual([
      ["gateway/cert-expiry.md", "处理步骤"],
    ]);
    expect(harness.violations).toEqual([]);
  });
});
