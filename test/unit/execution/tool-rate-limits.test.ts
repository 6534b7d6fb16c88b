import type pg from "pg";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryBudgets, openBudgetStore, RATE_LIMIT_TABLE } from "../../../src/execution/rate-limit-store.js";
import { ToolRateLimits } from "../../../src/execution/tool-rate-limits.js";
import { limitedTool, outcomeOf, refusedCallsCostNothing } from "../../fixtures/rate-limit-scenario.js";

/** One statement the fake pool received: its text, its values, and whether it ran on the set-up client. */
interface Statement {
  text: string;
  values: unknown[];
  onClient: boolean;
}

/**
 * A stand-in for `pg.Pool` that keeps rate-limiter-flexible's rows in a map (the upsert's
 * semantics: a row whose window ended restarts) and can fail the draws of chosen keys.
 */
function fakePool(options: { failKeys?: string[] } = {}) {
  const statements: Statement[] = [];
  const rows = new Map<string, { points: number; expire: number | null }>();
  const run = (
    query: string | { text: string; values?: unknown[] },
    values: unknown[] | undefined,
    onClient: boolean,
  ) => {
    const text = typeof query === "string" ? query : query.text;
    const given = (typeof query === "string" ? values : query.values) ?? [];
    statements.push({ text, values: given, onClient });
    if (!text.includes("INSERT INTO")) return Promise.resolve({ rows: [], rowCount: 0 });
    const [key, points, expire, now] = given as [string, number, number | null, number];
    if (options.failKeys?.includes(key)) return Promise.reject(new Error("connection terminated unexpectedly"));
    const row = rows.get(key);
    const next =
      !row || (row.expire !== null && row.expire <= now) ? { points, expire } : { ...row, points: row.points + points };
    rows.set(key, next);
    return Promise.resolve({ rows: [next], rowCount: 1 });
  };
  let released: boolean | undefined;
  const pool = {
    query: (query: string | { text: string; values?: unknown[] }, values?: unknown[]) => run(query, values, false),
    connect: () =>
      Promise.resolve({
        query: (query: string, values?: unknown[]) => run(query, values, true),
        release: (destroy?: boolean) => {
          released = destroy ?? false;
        },
      }),
  };
  return { pool: pool as unknown as pg.Pool, statements, rows, released: () => released };
}

const upserts = (statements: Statement[]) =>
  statements.filter((statement) => statement.text.includes("INSERT INTO")).map(({ values }) => values.slice(0, 2));

afterEach(() => {
  vi.useRealTimers();
});

describe("where the rateLimit budgets are counted", () => {
  it("counts in this process's memory without a shared database, and sends nothing anywhere", async () => {
    const store = await openBudgetStore();
    expect(store.kind).toBe("memory");
    expect(new ToolRateLimits().store.kind).toBe("memory");
    const limits = new ToolRateLimits({ store });
    const tool = limitedTool({ perMinute: 2 });
    expect([await outcomeOf(limits, tool, "ada"), await outcomeOf(limits, tool, "bo")]).toEqual(["ok", "ok"]);
    expect(await outcomeOf(limits, tool, "cy")).toBe("rate_limited");
  });

  it("counts in PostgreSQL over the app's pool, its table created under the set-up lock, one upsert per budget", async () => {
    const fake = fakePool();
    const store = await openBudgetStore(fake.pool);
    expect(store.kind).toBe("postgres");
    const [lock, create] = fake.statements;
    expect(lock).toMatchObject({ text: "SELECT pg_advisory_lock($1)", onClient: true });
    expect(create).toMatchObject({ onClient: false });
    expect(create!.text).toContain(`CREATE TABLE IF NOT EXISTS "${RATE_LIMIT_TABLE}"`);
    // The lock is a session lock: ending the set-up session frees it.
    expect(fake.released()).toBe(true);

    const limits = new ToolRateLimits({ store });
    const tool = limitedTool({ perMinute: 5, perUserPerMinute: 2 });
    expect(await outcomeOf(limits, tool, "ada")).toBe("ok");
    expect(upserts(fake.statements)).toEqual([
      ["read_a|user|2|ada", 1],
      ["read_a|all|5|all", 1],
    ]);
  });

  it("keeps a long user id's key within the table's 255 characters", async () => {
    const fake = fakePool();
    const limits = new ToolRateLimits({ store: await openBudgetStore(fake.pool) });
    expect(await outcomeOf(limits, limitedTool({ perUserPerMinute: 1 }), "u".repeat(300))).toBe("ok");
    expect(await outcomeOf(limits, limitedTool({ perUserPerMinute: 1 }), "u".repeat(300))).toBe("rate_limited");
    const [key] = upserts(fake.statements)[0] as [string];
    expect(key).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("refuses the call as transient when the database cannot count it, logs why, and gives the user's point back", async () => {
    const fake = fakePool({ failKeys: ["read_a|all|5|all"] });
    const errors: Array<{ message: string; error: unknown }> = [];
    const limits = new ToolRateLimits({
      store: await openBudgetStore(fake.pool),
      onStoreError: (message, error) => errors.push({ message, error }),
    });
    const tool = limitedTool({ perMinute: 5, perUserPerMinute: 2 });
    const refused = await limits.take(tool, { id: "ada", role: "operator" });
    expect(refused).toEqual({
      ok: false,
      errorCode: "transient",
      message:
        "read_a was not called: its call budget could not be checked just now. Try again shortly, or answer with what you have.",
    });
    expect(errors).toEqual([
      {
        message: "read_a: the call budget could not be counted; the call was refused",
        error: new Error("connection terminated unexpectedly"),
      },
    ]);
    expect(upserts(fake.statements)).toEqual([
      ["read_a|user|2|ada", 1],
      ["read_a|all|5|all", 1],
      ["read_a|user|2|ada", -1],
    ]);
    expect(fake.rows.get("read_a|user|2|ada")?.points).toBe(0);
  });
});

describe("the budgets' give-back", () => {
  it("starts a new budget when the config changes a tool's limit", async () => {
    const limits = new ToolRateLimits();
    expect(await outcomeOf(limits, limitedTool({ perUserPerMinute: 1 }), "ada")).toBe("ok");
    expect(await outcomeOf(limits, limitedTool({ perUserPerMinute: 1 }), "ada")).toBe("rate_limited");
    expect(await outcomeOf(limits, limitedTool({ perUserPerMinute: 2 }), "ada")).toBe("ok");
  });

  it("charges a user nothing for calls refused at once, whichever budget refused each", async () => {
    const limits = new ToolRateLimits({ store: memoryBudgets() });
    expect(await refusedCallsCostNothing(limits, limits)).toEqual(["ok", "rate_limited", "rate_limited", "ok"]);
  });

  it("gives nothing back into the next window when the refusal came after the user's window ended", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const perUser = new RateLimiterMemory({ points: 1, duration: 60, keyPrefix: "" });
    // A shared budget that is spent and answers only after a minute (a slow database).
    const slowShared = new (class extends RateLimiterMemory {
      override consume(key: string | number, points?: number, options?: Record<string, unknown>) {
        vi.setSystemTime(Date.now() + 61_000);
        return super.consume(key, points, options);
      }
    })({ points: 0, duration: 60, keyPrefix: "" });
    const limits = new ToolRateLimits({
      store: { kind: "memory", budget: (points) => (points === 1 ? perUser : slowShared) },
    });
    expect(await outcomeOf(limits, limitedTool({ perMinute: 5, perUserPerMinute: 1 }), "ada")).toBe("rate_limited");
    // Without the check, the give-back would open the new window at -1 point: two calls for the price of one.
    const key = "read_a|user|1|ada";
    expect((await perUser.consume(key)).consumedPoints).toBe(1);
    await expect(perUser.consume(key)).rejects.toBeInstanceOf(RateLimiterRes);
  });
});
