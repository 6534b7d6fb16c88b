import pg from "pg";

/**
 * A parameter as an SQL literal, escaped by node-postgres (`escapeLiteral`), typed as the
 * driver would send it: JSON for objects, hex for bytes, `ARRAY[...]` for arrays.
 */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`cannot write ${value} to PostgreSQL`);
    return String(value);
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "string") return pg.escapeLiteral(value);
  // Hex digits need no escaping; the E'' form reads the same whatever standard_conforming_strings says.
  if (value instanceof Uint8Array)
    return `E'\\\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex")}'::bytea`;
  if (value instanceof Date) return pg.escapeLiteral(value.toISOString());
  if (Array.isArray(value)) return value.length === 0 ? "'{}'" : `ARRAY[${value.map(sqlLiteral).join(", ")}]`;
  return pg.escapeLiteral(JSON.stringify(value));
}

/**
 * `text` with its `$1`, `$2`, … replaced by the literals of `values`, so it can run in a
 * simple query with other statements (one round trip, one transaction). The texts given are
 * opspilot's own statements, whose only `$` signs are their parameters.
 */
export function withLiterals(text: string, values: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, index: string) => {
    const position = Number(index) - 1;
    if (position >= values.length) throw new Error(`no value for $${index}`);
    return sqlLiteral(values[position]);
  });
}

/** Runs statements (values written in) in one simple query: one round trip, one transaction. */
export async function runTogether(pool: pg.Pool, statements: string[]): Promise<pg.QueryResult[]> {
  const result = (await pool.query(statements.join(";\n"))) as pg.QueryResult | pg.QueryResult[];
  return Array.isArray(result) ? result : [result];
}
