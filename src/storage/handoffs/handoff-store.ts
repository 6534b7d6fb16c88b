import { z } from "zod";
import type { RunUser } from "../../contracts/user.js";

/**
 * The hand-overs table, the same in SQLite and PostgreSQL (BIGINT is INTEGER to SQLite): one row
 * per thread whose run stopped at a checkpoint for another process, with the user it ran as (JSON).
 */
export const HANDOFFS_TABLE = `CREATE TABLE IF NOT EXISTS opspilot_handoffs (
  thread_id TEXT PRIMARY KEY, user_json TEXT NOT NULL, handed_at BIGINT NOT NULL);`;

/** A run handed over at shutdown, waiting for a process to take its thread over. */
export interface HandedOverRun {
  threadId: string;
  /** Who the run ran as: the recovery runs as them. */
  user: RunUser;
  /** Epoch ms it was handed over; a later hand-over of the thread replaces it. */
  handedAt: number;
}

/** The runs handed over and not yet taken over, in the database every process shares. */
export interface HandoffStore {
  /** Keeps the thread's hand-over (one per thread: a later one replaces it, with its own time). */
  recordHandoff(run: HandedOverRun): Promise<void>;
  /** The hand-overs waiting, oldest first, at most `limit`. */
  handoffs(limit: number): Promise<HandedOverRun[]>;
  /** Forgets that hand-over of the thread (not a later one, recorded since it was read). */
  forgetHandoff(threadId: string, handedAt: number): Promise<void>;
}

const userSchema = z.object({ id: z.string(), role: z.string() });

/** A hand-over from its row (`user_json` checked: a row that does not parse is a bug, and throws). */
export function handoffFromRow(row: Record<string, unknown>): HandedOverRun {
  return {
    threadId: row.thread_id as string,
    user: userSchema.parse(JSON.parse(row.user_json as string)),
    // BIGINT comes back as text from PostgreSQL.
    handedAt: Number(row.handed_at),
  };
}

/** A hand-over's column values in `opspilot_handoffs` order. */
export function handoffValues(run: HandedOverRun): [string, string, number] {
  return [run.threadId, JSON.stringify({ id: run.user.id, role: run.user.role }), run.handedAt];
}
