import { ToolError } from "../contracts/errors.js";

/** Refuses to start work for a call that was already cancelled or timed out. */
export function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new ToolError("cancelled", "The call was cancelled before it ran.");
}
