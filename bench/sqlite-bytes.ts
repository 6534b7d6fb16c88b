import type { Database } from "better-sqlite3";

/** What a table of opspilot's SQLite file holds, for the storage figures. */
export type TableCategory = "checkpoints" | "writes" | "results" | "events" | "records" | "other";

/** Categories in report order. */
export const CATEGORIES: readonly TableCategory[] = ["checkpoints", "writes", "results", "events", "records"];

/** The category of a table by its name (`SqliteSaver`'s two tables, opspilot's own, the demo dataset's). */
export function tableCategory(table: string): TableCategory {
  if (/checkpoint/.test(table)) return "checkpoints";
  if (/writes/.test(table)) return "writes";
  if (table === "opspilot_results") return "results";
  if (table === "opspilot_events") return "events";
  if (table.startsWith("opspilot_")) return "records";
  return "other";
}

/** Bytes on disk per category (tables with their indexes, from `dbstat`), after a VACUUM so no free pages count. */
export function diskBytesByCategory(db: Database): Record<TableCategory, number> {
  db.exec("VACUUM");
  const owners = new Map(
    (db.prepare("SELECT name, tbl_name FROM sqlite_master").all() as Array<{ name: string; tbl_name: string }>).map(
      (row) => [row.name, row.tbl_name],
    ),
  );
  const totals: Record<TableCategory, number> = {
    checkpoints: 0,
    writes: 0,
    results: 0,
    events: 0,
    records: 0,
    other: 0,
  };
  for (const row of db.prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name").all() as Array<{
    name: string;
    bytes: number;
  }>)
    totals[tableCategory(owners.get(row.name) ?? row.name)] += row.bytes;
  return totals;
}

/**
 * Bytes of every value stored in the checkpointer's tables (the sum of `length()` over all their
 * columns): exact, unlike page counts, so one step's growth shows.
 */
export function checkpointerValueBytes(db: Database): number {
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>)
    .map((row) => row.name)
    .filter((name) => ["checkpoints", "writes"].includes(tableCategory(name)));
  let total = 0;
  for (const table of tables) {
    const columns = (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>).map(
      (column) => `COALESCE(length("${column.name}"), 0)`,
    );
    const row = db.prepare(`SELECT COALESCE(SUM(${columns.join(" + ")}), 0) AS bytes FROM "${table}"`).get() as {
      bytes: number;
    };
    total += row.bytes;
  }
  return total;
}

/** The checkpointer's stored values split by what they hold (`length()` of each, as `checkpointerValueBytes` counts). */
export interface CheckpointerParts {
  /** LangGraph's checkpoints and their metadata (channel versions, versions seen, the non-delta channels' values). */
  checkpoints: number;
  /** The `messages` channel's writes: each message of the thread, once. */
  messages: number;
  /** Every other channel's writes (opspilot's `run`, `batch`, `memory`, `stop`, LangGraph's branch and resume writes). */
  otherWrites: number;
  /** Ids and key columns of both tables. */
  keys: number;
}

/** The stored values of `SqliteSaver`'s two tables, split into {@link CheckpointerParts}. */
export function checkpointerParts(db: Database): CheckpointerParts {
  // The saver creates its tables on first use.
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'writes'").get())
    return { checkpoints: 0, messages: 0, otherWrites: 0, keys: 0 };
  const sum = (sql: string) => (db.prepare(sql).get() as { bytes: number | null }).bytes ?? 0;
  const checkpoints = sum("SELECT SUM(length(checkpoint) + length(metadata)) AS bytes FROM checkpoints");
  const messages = sum("SELECT SUM(length(value)) AS bytes FROM writes WHERE channel = 'messages'");
  const otherWrites = sum("SELECT SUM(length(value)) AS bytes FROM writes WHERE channel <> 'messages'");
  return {
    checkpoints,
    messages,
    otherWrites,
    keys: checkpointerValueBytes(db) - checkpoints - messages - otherWrites,
  };
}
