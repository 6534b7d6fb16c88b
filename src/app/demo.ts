import type { Database } from "better-sqlite3";
import { createDemoTools, OpsStore, type EstateLedger } from "../demo/index.js";
import type { ToolDefinition } from "../tools/types.js";

/** The demo estate on a SQLite connection (its restarts and rollbacks in `ledger` when given): what the demo tools act on. */
export function demoEstate(db: Database, ledger?: EstateLedger): OpsStore {
  return new OpsStore(db, { ledger });
}

/** The demo tools over the demo estate on a SQLite connection (`npm run mcp` serves them). */
export function demoToolsOn(db: Database): ToolDefinition[] {
  return createDemoTools(new OpsStore(db));
}
