import type { PlannedCall } from "../../contracts/calls.js";
import { ToolError } from "../../contracts/errors.js";
import type { CallPreview } from "../../contracts/pause/pause.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { ToolContext } from "../../tools/types.js";
import type { Batch } from "../state.js";

/** A preview (dry run) never holds a pause back longer than this. */
const PREVIEW_LIMIT_MS = 15_000;

/** Marks each approval call whose tool makes dry runs, so `execute_tools` previews it before the pause (pure). */
export function markPreviews(calls: PlannedCall[], registry: ToolRegistry): PlannedCall[] {
  return calls.map((call) =>
    call.status === "needs_approval" && registry.get(call.tool)?.preview
      ? { ...call, preview: { argsHash: call.argsHash } }
      : call,
  );
}

function due(call: PlannedCall): boolean {
  return (
    call.status === "needs_approval" &&
    call.preview !== undefined &&
    (call.preview.result === undefined || call.preview.argsHash !== call.argsHash)
  );
}

/** Whether a waiting call still needs its dry run: then the batch goes through `execute_tools` before the pause. */
export function previewsDue(batch: Batch | null): boolean {
  return (batch?.calls ?? []).some(due);
}

/**
 * Runs the dry runs of the batch's waiting calls (read-only by the tool's contract, in
 * parallel) and keeps each result with its call. A failed or slow dry run becomes the
 * preview's `error`: the call waits for its approval all the same.
 */
export async function runPreviews(
  batch: Batch,
  registry: ToolRegistry,
  contextFor: (call: PlannedCall) => Omit<ToolContext, "signal">,
  signal: AbortSignal,
): Promise<Batch> {
  if (!batch.calls.some(due)) return batch;
  const calls = await Promise.all(
    batch.calls.map(async (call): Promise<PlannedCall> => {
      const tool = registry.get(call.tool);
      if (!due(call) || !tool?.preview) return call;
      const result = await previewOf(() => tool.preview!(call.args, { ...contextFor(call), signal }));
      return { ...call, preview: { argsHash: call.argsHash, result } };
    }),
  );
  return { ...batch, calls };
}

async function previewOf(make: () => Promise<CallPreview>): Promise<CallPreview> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<CallPreview>((resolve) => {
    timer = setTimeout(() => resolve({ changes: [], error: "The dry run took too long." }), PREVIEW_LIMIT_MS);
  });
  try {
    return await Promise.race([make(), limit]);
  } catch (error) {
    const message = error instanceof ToolError ? error.message : "The dry run failed.";
    return { changes: [], error: message };
  } finally {
    clearTimeout(timer);
  }
}
