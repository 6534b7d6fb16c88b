import type { ToolDefinition } from "../../../types.js";
import type { KubeContext } from "../context.js";
import { createDeletePodTool } from "./delete-pod-tool.js";
import { createRolloutRestartTool } from "./restart-tool.js";
import { createScaleTool } from "./scale-tool.js";
import { createRolloutUndoTool } from "./undo-tool.js";

/** The approved writes: each high risk, with a dry-run preview, run at most once per call. */
export function createWriteTools(context: KubeContext): ToolDefinition[] {
  return [
    createRolloutRestartTool(context),
    createScaleTool(context),
    createRolloutUndoTool(context),
    createDeletePodTool(context),
  ];
}
