import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore, type BaseStore, type Item, type Operation } from "@langchain/langgraph";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openSqlite } from "../../src/storage/sqlite/open-sqlite.js";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";

/** The two stores every case runs on, each fresh. */
const STORES = {
  InMemoryStore: () => new InMemoryStore() as BaseStore,
  SqliteStore: () => new SqliteStore(new BetterSqlite3(":memory:")) as BaseStore,
};
type StoreName = keyof typeof STORES;

/**
 * One behaviour, run on both stores. `expected` is what both answer; where SqliteStore differs
 * on purpose (see its doc comment), `differs` names what each answers, so the difference shows.
 */
interface Case {
  name: string;
  run: (store: BaseStore) => Promise<unknown>;
  expected?: unknown;
  differs?: Record<StoreName, unknown>;
}

/** Items as `namespace/key` paths with their values, for exact comparisons without timestamps. */
const view = (items: readonly Item[]) => items.map((item) => [[...item.namespace, item.key].join("/"), item.value]);
const paths = (items: readonly Item[]) => view(items).map(([path]) => path as string);
const sorted = (items: readonly Item[]) => paths(items).sort();

/** The name of the error `work` throws, or "no error". */
async function failure(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
    return "no error";
  } catch (error) {
    return (error as Error).name;
  }
}

async function putAll(store: BaseStore, items: Array<[string[], string, Record<string, unknown>]>): Promise<void> {
  for (const [namespace, key, value] of items) await store.put(namespace, key, value);
}

const CASES: Case[] = [
  {
    name: "get returns what put stored, created and updated at the same moment",
    async run(store) {
      await store.put(["users", "u1"], "prefs", { theme: "dark", size: 3 });
      const item = await store.get(["users", "u1"], "prefs");
      return { ...view([item!])[0], dates: item!.createdAt instanceof Date && +item!.createdAt === +item!.updatedAt };
    },
    expected: { 0: "users/u1/prefs", 1: { theme: "dark", size: 3 }, dates: true },
  },
  {
    name: "get of a missing key, or of a key in another namespace, is null",
    async run(store) {
      await store.put(["users", "u1"], "prefs", { theme: "dark" });
      return [await store.get(["users", "u1"], "other"), await store.get(["users", "u2"], "prefs")];
    },
    expected: [null, null],
  },
  {
    name: "a second put replaces the value and keeps the creation time",
    async run(store) {
      await store.put(["docs"], "a", { version: 1 });
      const first = await store.get(["docs"], "a");
      await store.put(["docs"], "a", { version: 2 });
      const second = await store.get(["docs"], "a");
      return {
        value: second!.value,
        createdKept: +second!.createdAt === +first!.createdAt,
        updatedNotBefore: +second!.updatedAt >= +first!.updatedAt,
      };
    },
    expected: { value: { version: 2 }, createdKept: true, updatedNotBefore: true },
  },
  {
    name: "delete removes the item, and deleting a missing item is no error",
    async run(store) {
      await store.put(["docs"], "a", { n: 1 });
      await store.delete(["docs"], "a");
      await store.delete(["docs"], "never");
      return [await store.get(["docs"], "a"), await store.search(["docs"])];
    },
    expected: [null, []],
  },
  {
    name: "search finds the prefix's namespace and those below it, not a sibling spelled alike",
    async run(store) {
      await putAll(store, [
        [["docs"], "a", {}],
        [["docs", "2024"], "b", {}],
        [["docsx"], "c", {}],
        [["other"], "d", {}],
      ]);
      return { docs: sorted(await store.search(["docs"])), all: sorted(await store.search([])) };
    },
    expected: { docs: ["docs/2024/b", "docs/a"], all: ["docs/2024/b", "docs/a", "docsx/c", "other/d"] },
  },
  {
    name: "a filter compares top-level fields by strict equality",
    async run(store) {
      await putAll(store, [
        [["t"], "one", { status: "active", n: 1, flag: true, gone: null, nested: { a: 1 } }],
        [["t"], "two", { status: "active", n: "1", flag: false }],
        [["t"], "three", { status: "closed", n: 2 }],
      ]);
      const keys = async (filter: Record<string, unknown>) =>
        (await store.search(["t"], { filter })).map((item) => item.key).sort();
      return {
        status: await keys({ status: "active" }),
        number: await keys({ n: 1 }),
        text: await keys({ n: "1" }),
        boolean: await keys({ flag: false }),
        null: await keys({ gone: null }),
        missing: await keys({ absent: null }),
        both: await keys({ status: "active", flag: true }),
        none: await keys({}),
      };
    },
    expected: {
      status: ["one", "two"],
      number: ["one"],
      text: ["two"],
      boolean: ["two"],
      null: ["one"],
      missing: [],
      both: ["one"],
      none: ["one", "three", "two"],
    },
  },
  {
    name: "filter operators compare as InMemoryStore compares them",
    async run(store) {
      for (const [key, n] of [
        ["a", 1],
        ["b", 2],
        ["c", 3],
        ["d", "4"],
      ] as const)
        await store.put(["t"], key, { n });
      await store.put(["t"], "e", { other: true });
      const keys = async (filter: Record<string, unknown>) =>
        (await store.search(["t"], { filter })).map((item) => item.key).sort();
      return {
        gt: await keys({ n: { $gt: 2 } }),
        gte: await keys({ n: { $gte: 2 } }),
        lt: await keys({ n: { $lt: 2 } }),
        lte: await keys({ n: { $lte: 2, $gt: 1 } }),
        eq: await keys({ n: { $eq: 2 } }),
        ne: await keys({ n: { $ne: 2 } }),
        in: await keys({ n: { $in: [1, 3, 4] } }),
        nin: await keys({ n: { $nin: [1, 3] } }),
      };
    },
    expected: {
      gt: ["c", "d"],
      gte: ["b", "c", "d"],
      lt: ["a"],
      lte: ["b"],
      eq: ["b"],
      ne: ["a", "c", "d", "e"],
      in: ["a", "c"],
      nin: ["b", "d", "e"],
    },
  },
  {
    name: "limit (10 by default) and offset page through every item once",
    async run(store) {
      for (let n = 0; n < 25; n += 1) await store.put(["p"], `k${n}`, { n, even: n % 2 === 0 });
      const all = paths(await store.search(["p"], { limit: 100 }));
      const pages: string[] = [];
      for (let offset = 0; offset < 25; offset += 7)
        pages.push(...paths(await store.search(["p"], { limit: 7, offset })));
      const even = paths(await store.search(["p"], { filter: { even: true }, limit: 100 }));
      const evenPage = paths(await store.search(["p"], { filter: { even: true }, limit: 3, offset: 2 }));
      return {
        byDefault: (await store.search(["p"])).length,
        pagesAreTheWhole: JSON.stringify(pages) === JSON.stringify(all),
        distinct: new Set(all).size,
        filteredPage: JSON.stringify(evenPage) === JSON.stringify(even.slice(2, 5)),
        even: even.length,
        beyond: await store.search(["p"], { offset: 25 }),
      };
    },
    expected: { byDefault: 10, pagesAreTheWhole: true, distinct: 25, filteredPage: true, even: 13, beyond: [] },
  },
  {
    name: "search returns, in this order (a written again last)",
    async run(store) {
      for (const key of ["a", "b", "c"]) await store.put(["o"], key, { key });
      await store.put(["o"], "a", { key: "a", again: true });
      return paths(await store.search(["o"]));
    },
    differs: {
      // Insertion order; an update keeps its place.
      InMemoryStore: ["o/a", "o/b", "o/c"],
      // Most recently written first, as PostgresStore and LangGraph's Python SqliteStore answer.
      SqliteStore: ["o/a", "o/c", "o/b"],
    },
  },
  {
    name: "a query without a vector index is ignored",
    async run(store) {
      await putAll(store, [
        [["q"], "a", { text: "disk full" }],
        [["q"], "b", { text: "pool exhausted" }],
      ]);
      const found = await store.search(["q"], { query: "nothing like either" });
      return { keys: found.map((item) => item.key).sort(), scores: found.map((item) => item.score) };
    },
    expected: { keys: ["a", "b"], scores: [undefined, undefined] },
  },
  {
    name: "in one batch, reads see the store before it and the last put of a key wins",
    async run(store) {
      const operations: Operation[] = [
        { namespace: ["b"], key: "k", value: { v: 1 } },
        { namespace: ["b"], key: "k" },
        { namespace: ["b"], key: "k", value: { v: 2 } },
        { namespacePrefix: ["b"], limit: 10, offset: 0 },
        { namespace: ["b"], key: "j", value: { v: 3 } },
        { namespace: ["b"], key: "j", value: null },
      ];
      const results = await store.batch(operations);
      return { results, k: (await store.get(["b"], "k"))?.value, j: await store.get(["b"], "j") };
    },
    expected: { results: [null, null, null, [], null, null], k: { v: 2 }, j: null },
  },
  {
    name: "a batch holding an invalid namespace changes nothing",
    async run(store) {
      const error = await failure(() =>
        store.batch([
          { namespace: ["fine"], key: "k", value: { v: 1 } },
          { namespace: ["not.fine"], key: "k", value: { v: 1 } },
        ]),
      );
      return { error, written: await store.get(["fine"], "k") };
    },
    expected: { error: "InvalidNamespaceError", written: null },
  },
  {
    name: "namespaces are validated as LangGraph validates them",
    async run(store) {
      const put = (namespace: string[]) => failure(() => store.put(namespace, "k", { v: 1 }));
      const batchPut = (namespace: string[]) => failure(() => store.batch([{ namespace, key: "k", value: { v: 1 } }]));
      return {
        empty: await put([]),
        period: await put(["a.b"]),
        colon: await put(["a:b"]),
        emptyLabel: await put(["a", ""]),
        reservedRoot: await put(["langgraph", "x"]),
        batchPeriod: await batchPut(["a.b"]),
        batchColon: await batchPut(["a:b"]),
        batchReservedRoot: await batchPut(["langgraph", "x"]),
        searchColon: await failure(() => store.search(["a:b"])),
      };
    },
    expected: {
      empty: "InvalidNamespaceError",
      period: "InvalidNamespaceError",
      colon: "InvalidNamespaceError",
      emptyLabel: "InvalidNamespaceError",
      reservedRoot: "InvalidNamespaceError",
      batchPeriod: "InvalidNamespaceError",
      batchColon: "InvalidNamespaceError",
      batchReservedRoot: "no error",
      searchColon: "InvalidNamespaceError",
    },
  },
  {
    name: "listNamespaces matches prefixes, suffixes and wildcards, truncates to maxDepth and pages",
    async run(store) {
      await putAll(store, [
        [["a", "b", "c"], "k", {}],
        [["a", "b", "d"], "k", {}],
        [["a", "e"], "k", {}],
        [["a", "e"], "l", {}],
        [["x", "b", "c"], "k", {}],
      ]);
      const list = async (options: Parameters<BaseStore["listNamespaces"]>[0]) =>
        (await store.listNamespaces(options)).map((namespace) => namespace.join("/"));
      return {
        all: await list({}),
        prefix: await list({ prefix: ["a"] }),
        suffix: await list({ suffix: ["c"] }),
        wildcard: await list({ prefix: ["*", "b"] }),
        both: await list({ prefix: ["a"], suffix: ["d"] }),
        depth: await list({ maxDepth: 2 }),
        page: await list({ limit: 2, offset: 1 }),
      };
    },
    expected: {
      all: ["a/b/c", "a/b/d", "a/e", "x/b/c"],
      prefix: ["a/b/c", "a/b/d", "a/e"],
      suffix: ["a/b/c", "x/b/c"],
      wildcard: ["a/b/c", "a/b/d", "x/b/c"],
      both: ["a/b/d"],
      depth: ["a/b", "a/e", "x/b"],
      page: ["a/b/d", "a/e"],
    },
  },
  {
    name: "listNamespaces after the last item of a namespace was deleted",
    async run(store) {
      await store.put(["kept"], "k", {});
      await store.put(["emptied"], "k", {});
      await store.delete(["emptied"], "k");
      return (await store.listNamespaces()).map((namespace) => namespace.join("/"));
    },
    // SqliteStore lists namespaces that hold items, as PostgresStore does.
    differs: { InMemoryStore: ["emptied", "kept"], SqliteStore: ["kept"] },
  },
  {
    name: "a filter value that is an object or array but no operators",
    async run(store) {
      await store.put(["f"], "k", { tags: ["x"], meta: { a: 1 } });
      return {
        array: await failure(() => store.search(["f"], { filter: { tags: ["x"] } })),
        object: await failure(() => store.search(["f"], { filter: { meta: { a: 1 } } })),
        found: (await store.search(["f"], { filter: { tags: ["x"] } }).catch(() => [])).length,
      };
    },
    // InMemoryStore compares by reference and matches nothing; SqliteStore says why.
    differs: {
      InMemoryStore: { array: "no error", object: "no error", found: 0 },
      SqliteStore: { array: "TypeError", object: "TypeError", found: 0 },
    },
  },
  {
    name: "a value read back and changed by the caller",
    async run(store) {
      await store.put(["c"], "k", { theme: "dark" });
      (await store.get(["c"], "k"))!.value.theme = "light";
      return (await store.get(["c"], "k"))!.value;
    },
    // InMemoryStore hands out the stored object itself; SqliteStore a copy.
    differs: { InMemoryStore: { theme: "light" }, SqliteStore: { theme: "dark" } },
  },
  {
    name: "a negative limit",
    run: (store) => failure(() => store.search(["n"], { limit: -1 })),
    differs: { InMemoryStore: "no error", SqliteStore: "TypeError" },
  },
];

describe("SqliteStore beside InMemoryStore", () => {
  it.each(CASES)("$name", async ({ run, expected, differs }) => {
    const answers: Record<string, unknown> = {};
    for (const [name, open] of Object.entries(STORES)) answers[name] = await run(open());
    expect(answers).toEqual(differs ?? { InMemoryStore: expected, SqliteStore: expected });
  });
});

describe("SqliteStore on opspilot's SQLite file", () => {
  const directory = mkdtempSync(join(tmpdir(), "opspilot-sqlite-store-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("keeps items in the file across connections, with their times", async () => {
    const path = join(directory, "kept.sqlite");
    const first = openSqlite(path);
    await first.store.put(["opspilot", "incidents", "abc"], "inc_1", { conclusion: "pool exhausted" });
    const written = await first.store.get(["opspilot", "incidents", "abc"], "inc_1");
    first.close();

    const second = openSqlite(path);
    const read = await second.store.get(["opspilot", "incidents", "abc"], "inc_1");
    expect(read).toEqual(written);
    expect(await second.store.listNamespaces({ prefix: ["opspilot"] })).toEqual([["opspilot", "incidents", "abc"]]);
    second.close();
  });

  it("refuses values JSON cannot hold, and values that are no object, writing nothing of the batch", async () => {
    const store = new SqliteStore(new BetterSqlite3(":memory:"));
    const array = await failure(() => store.put(["v"], "k", [1, 2] as unknown as Record<string, unknown>));
    const bigint = store.batch([
      { namespace: ["v"], key: "fine", value: { n: 1 } },
      { namespace: ["v"], key: "big", value: { n: 1n } },
    ]);
    await expect(bigint).rejects.toThrow(/The store value of v \/ big is not JSON/);
    expect(array).toBe("TypeError");
    expect(await store.search(["v"])).toEqual([]);
  });

  it("refuses operations it cannot read, naming what is wrong", async () => {
    const store = new SqliteStore(new BetterSqlite3(":memory:"));
    await expect(store.search(["s"], { filter: { n: { $gt: [1] } } })).rejects.toThrow(
      'Store search filter on "n": $gt takes a scalar, got an array.',
    );
    await expect(store.search(["s"], { filter: { n: { $like: "x" } } })).rejects.toThrow(/got keys \$like/);
    await expect(store.search(["s"], { offset: 1.5 })).rejects.toThrow(
      "A store operation's offset must be a non-negative integer, got 1.5.",
    );
    await expect(store.listNamespaces({ maxDepth: 0 })).rejects.toThrow("maxDepth must be at least 1");
    await expect(store.batch([{ nothing: true } as unknown as Operation])).rejects.toThrow("Unknown store operation");
  });
});
