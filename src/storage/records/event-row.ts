import type { RunEvent } from "../../contracts/events.js";
import { packText, unpackText } from "../checkpoints/blob-codec.js";

/** Events whose stored body SQL reads (the thread list, the waiting pauses of the summary): kept as JSON text. */
const READ_BY_SQL: ReadonlySet<string> = new Set(["run_finished", "loop_interrupt"]);

/**
 * The body stored for an event: what its columns (thread, run, number, type) do not already
 * hold. A long body of an event SQL never reads (an answer, a tool call) is stored compressed.
 */
export function storedEventBody(event: RunEvent): string | Buffer {
  const { threadId: _thread, runId: _run, seq: _seq, type: _type, ...rest } = event;
  const text = JSON.stringify(rest);
  return READ_BY_SQL.has(event.type) ? text : packText(text);
}

/** The event a stored row holds; rows stored before bodies were trimmed hold the whole event, which reads the same. */
export function eventFromRow(row: Record<string, unknown>): RunEvent {
  const body = JSON.parse(unpackText(row.body as string | Uint8Array)) as Record<string, unknown>;
  return {
    type: row.type,
    ...body,
    threadId: row.thread_id,
    runId: row.run_id,
    seq: Number(row.seq),
  } as RunEvent;
}
