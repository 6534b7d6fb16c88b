import type { RunEvent, StreamEvent } from "../../contracts/events.js";

/**
 * Collects a run's recorded events until it finishes (tests, benchmarks and scripts that need
 * the whole run at once); answer fragments are left out, the complete message is among the events.
 */
export async function collectEvents(events: AsyncIterable<StreamEvent>): Promise<RunEvent[]> {
  const collected: RunEvent[] = [];
  for await (const event of events) if (event.type !== "assistant_delta") collected.push(event);
  return collected;
}

/** An observer of the recorded events only, for a channel that also carries answer fragments. */
export function observeRecorded(
  onEvent: ((event: RunEvent) => void) | undefined,
): ((event: StreamEvent) => void) | undefined {
  if (!onEvent) return undefined;
  return (event) => {
    if (event.type !== "assistant_delta") onEvent(event);
  };
}
