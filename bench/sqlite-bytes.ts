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
