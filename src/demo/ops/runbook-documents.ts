import type { RankedDocument } from "../../tools/runbooks/types.js";
import { RUNBOOKS } from "./data/index.js";
import { runbookIndexColumns } from "./schema.js";
import { toRunbookHit } from "./views.js";

/** The demo's runbooks as documents a runbooks folder ranks beside its own sections, when the demo tools are on. */
export function demoRunbookDocuments(): RankedDocument[] {
  return RUNBOOKS.map((doc) => ({
    id: doc.id,
    columns: runbookIndexColumns(doc),
    hit: (score, language) => toRunbookHit(doc, score, language),
  }));
}
