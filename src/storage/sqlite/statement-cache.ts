import type { Database, Statement } from "better-sqlite3";

/** Prepared statements of one connection, each compiled once (preparing costs more than running). */
export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: Database) {}

  /** The prepared statement for `source`. */
  get(source: string): Statement {
    let statement = this.statements.get(source);
    if (!statement) {
      statement = this.db.prepare(source);
      this.statements.set(source, statement);
    }
    return statement;
  }
}
