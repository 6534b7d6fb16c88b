import type { Database } from "better-sqlite3";
import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from "@langchain/langgraph-checkpoint";
import { StatementCache } from "./statement-cache.js";
import { matchesFilter } from "./store-filter.js";
import { check, count, kindOf, meets, type Kind } from "./store-operations.js";

/**
 * The store's table. A namespace is kept as its labels joined by ":" (LangGraph refuses labels
 * holding one), as `PostgresStore` keeps it; `write_seq` numbers the writes, so "most recently
 * written first" holds also for writes within one millisecond.
 */
const STORE_SCHEMA = `
CREATE TABLE IF NOT EXISTS opspilot_store (
  namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL, write_seq INTEGER NOT NULL, PRIMARY KEY (namespace, key));
CREATE INDEX IF NOT EXISTS opspilot_store_write_seq ON opspilot_store (write_seq);
`;

const SEPARATOR = ":";
const COLUMNS = "namespace, key, value, created_at, updated_at";
// Every namespace under "a:b" sorts between "a:b:" and "a:b;" (";" follows ":"), so the key's index finds them.
const UNDER_PREFIX = "(namespace = ? OR (namespace >= ? AND namespace < ?))";

interface Row {
  namespace: string;
  key: string;
  value: string;
  created_at: number;
  updated_at: number;
}

/** A value as the JSON text its row keeps; a value JSON cannot hold is a `TypeError` naming the item. */
function jsonOf(value: Record<string, unknown>, namespace: string, key: string): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    throw new TypeError(`The store value of ${namespace} / ${key} is not JSON: ${(error as Error).message}`);
  }
}

function itemOf(row: Row): Item {
  return {
    namespace: row.namespace.split(SEPARATOR),
    key: row.key,
    value: JSON.parse(row.value) as Record<string, unknown>,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/**
 * LangGraph's `BaseStore` over a table in opspilot's SQLite file, for nodes (`config.store`) and
 * services such as past incidents. It answers as `InMemoryStore` does: within a batch, reads see
 * the store as it was before the batch and puts apply after them, the last put of a key winning;
 * namespaces are validated as LangGraph validates them; `filter` compares top-level fields with
 * equality and the operators `$eq $ne $gt $gte $lt $lte $in $nin`. Where it differs: search
 * results come most recently written first (as `PostgresStore` and LangGraph's Python
 * `SqliteStore`), not in insertion order; a batch commits in one transaction; values are copies
 * (JSON); a namespace whose items were all deleted is no longer listed; a filter value that is an
 * object or array other than operators is a `TypeError`, not a silent non-match. There is no
 * vector index: `query` is ignored, as `InMemoryStore` without an index ignores it, and no item
 * has a `score`.
 */
export class SqliteStore extends BaseStore {
  private readonly statements: StatementCache;

  /** Creates the store's table in `db` when it is missing; the caller keeps and closes the connection. */
  constructor(private readonly db: Database) {
    super();
    db.exec(STORE_SCHEMA);
    this.statements = new StatementCache(db);
  }

  /** Runs `operations` in one transaction and answers each in order (`null` for a put, as `InMemoryStore`). */
  async batch<Op extends readonly Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const kinds = operations.map(kindOf);
    operations.forEach((operation, index) => check(operation, kinds[index]!));
    const run = this.db.transaction(() => {
      const results = operations.map((operation, index) => this.answer(operation, kinds[index]!));
      this.applyPuts(operations.filter((_, index) => kinds[index] === "put") as PutOperation[]);
      return results;
    });
    // A batch that writes takes the write lock first: a read that later upgrades could meet SQLITE_BUSY.
    const results = kinds.includes("put") ? run.immediate() : run();
    return results as OperationResults<Op>;
  }

  private answer(operation: Operation, kind: Kind): Item | null | SearchItem[] | string[][] {
    switch (kind) {
      case "get": {
        const { namespace, key } = operation as GetOperation;
        const row = this.statements
          .get(`SELECT ${COLUMNS} FROM opspilot_store WHERE namespace = ? AND key = ?`)
          .get(namespace.join(SEPARATOR), key) as Row | undefined;
        return row ? itemOf(row) : null;
      }
      case "search":
        return this.find(operation as SearchOperation);
      case "list":
        return this.namespaces(operation as ListNamespacesOperation);
      case "put":
        return null;
      default: {
        const _exhaustive: never = kind;
        return _exhaustive;
      }
    }
  }

  private find({ namespacePrefix, filter, limit, offset }: SearchOperation): SearchItem[] {
    const [take, skip] = [count(limit, "limit", 10), count(offset, "offset", 0)];
    const prefix = namespacePrefix.join(SEPARATOR);
    const where = prefix ? `WHERE ${UNDER_PREFIX}` : "";
    const params = prefix ? [prefix, prefix + SEPARATOR, prefix + ";"] : [];
    const sql = `SELECT ${COLUMNS} FROM opspilot_store ${where} ORDER BY write_seq DESC`;
    if (!filter || Object.keys(filter).length === 0) {
      const rows = this.statements.get(`${sql} LIMIT ? OFFSET ?`).all(...params, take, skip) as Row[];
      return rows.map(itemOf);
    }
    const found: SearchItem[] = [];
    let skipped = 0;
    if (take === 0) return found;
    for (const row of this.statements.get(sql).iterate(...params) as IterableIterator<Row>) {
      const item = itemOf(row);
      if (!matchesFilter(item.value, filter)) continue;
      if (skipped < skip) skipped += 1;
      else if (found.push(item) === take) break;
    }
    return found;
  }

  private namespaces({ matchConditions, maxDepth, limit, offset }: ListNamespacesOperation): string[][] {
    const rows = this.statements.get("SELECT DISTINCT namespace FROM opspilot_store").all() as Array<{
      namespace: string;
    }>;
    const matching = rows
      .map((row) => row.namespace.split(SEPARATOR))
      .filter((namespace) => (matchConditions ?? []).every((condition) => meets(namespace, condition)));
    const joined = new Set(matching.map((namespace) => namespace.slice(0, maxDepth).join(SEPARATOR)));
    const sorted = [...joined].sort((a, b) => a.localeCompare(b)).map((namespace) => namespace.split(SEPARATOR));
    const skip = count(offset, "offset", 0);
    return sorted.slice(skip, limit === undefined ? undefined : skip + limit);
  }

  private applyPuts(puts: readonly PutOperation[]): void {
    const last = new Map<string, PutOperation>();
    for (const put of puts) last.set(JSON.stringify([put.namespace, put.key]), put);
    if (last.size === 0) return;
    const now = Date.now();
    const { seq } = this.statements.get("SELECT COALESCE(MAX(write_seq), 0) AS seq FROM opspilot_store").get() as {
      seq: number;
    };
    let next = seq;
    for (const { namespace, key, value } of last.values()) {
      const path = namespace.join(SEPARATOR);
      if (value === null) {
        this.statements.get("DELETE FROM opspilot_store WHERE namespace = ? AND key = ?").run(path, key);
        continue;
      }
      next += 1;
      this.statements
        .get(
          `INSERT INTO opspilot_store (${COLUMNS}, write_seq) VALUES (?, ?, ?, ?, ?, ?)
             ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at,
             write_seq = excluded.write_seq`,
        )
        .run(path, key, jsonOf(value, path, key), now, now, next);
    }
  }
}
