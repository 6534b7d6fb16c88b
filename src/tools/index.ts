import type { ToolDefinition } from "./types.js";
import { createReadResultTool } from "./read-result.js";
import type { ResultStore } from "../storage/types.js";

export {
  createRunbookSource,
  type RunbookSource,
  type RunbookSourceOptions,
  type RunbookStatus,
} from "./runbooks/source.js";
export type { DocumentHit, FolderRunbookHit, RankedDocument, RunbookProblem } from "./runbooks/types.js";
export { createSearchDocsTool, type DocsSearch } from "./search-docs.js";

/**
 * The tools every app has, demo tools or not: `read_result` pages the stored results of the
 * thread's own calls (design §2.7).
 */
export function createThreadTools(results: Pick<ResultStore, "getResult">): ToolDefinition[] {
  return [createReadResultTool(results)];
}
