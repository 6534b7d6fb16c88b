import type { Storage } from "../../storage/types.js";
import type { RecordsCursor } from "../../storage/records/records-page.js";

/** One line of a records export: a row of the records, tagged with what it is. */
export type ExportLine = { kind: "run" | "step" | "tool_call" | "decision" } & Record<string, unknown>;

/** Runs read per database round: a page's rows are held in memory, the export is not. */
const EXPORT_PAGE_RUNS = 200;

/**
 * Every record of the runs started within the window, run by run (the run, then its steps,
 * tool calls and pause decisions), read a page at a time so an export of months never sits
 * in memory whole.
 */
export async function* exportRecords(
  storage: Storage,
  window: { since: number; until: number },
): AsyncGenerator<ExportLine> {
  let after: RecordsCursor | undefined;
  do {
    const page = await storage.recordsPage({ ...window, limit: EXPORT_PAGE_RUNS, ...(after ? { after } : {}) });
    for (const run of page.runs) {
      const ofRun = (row: Record<string, unknown>) => row.run_id === run.run_id;
      yield { kind: "run", ...run };
      for (const step of page.steps.filter(ofRun)) yield { kind: "step", ...step };
      for (const call of page.toolCalls.filter(ofRun)) yield { kind: "tool_call", ...call };
      for (const decision of page.decisions.filter(ofRun)) yield { kind: "decision", ...decision };
    }
    after = page.next;
  } while (after);
}
