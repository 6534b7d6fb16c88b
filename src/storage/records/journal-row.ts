import type { Observation } from "../../contracts/observation.js";
import type { JournalEntry } from "../types.js";

/** A journal row (same columns in SQLite and PostgreSQL) as a `JournalEntry`. */
export function journalEntryFromRow(threadId: string, callId: string, row: Record<string, unknown>): JournalEntry {
  return {
    threadId,
    callId,
    tool: row.tool as string,
    argsHash: row.args_hash as string,
    state: row.state as JournalEntry["state"],
    observation: row.observation ? (JSON.parse(row.observation as string) as Observation) : undefined,
  };
}
