import type { ErrorCode } from "./error-codes.js";

export { ErrorCodeSchema, carriesToolContent, RETRYABLE, type ErrorCode } from "./error-codes.js";

/** Where an observation came from: the tool, and the MCP server behind it when there is one. */
export interface ObservationSource {
  /** Tool name as the model calls it. */
  tool: string;
  /** MCP server the tool belongs to; absent for built-in tools. */
  server?: string;
}

/**
 * Provenance every written observation carries (design §3), so the model can say where and
 * when a fact was seen. Optional in the type because the executor stamps it last.
 */
export interface ObservationEnvelope {
  /** The tool (and server) that produced the observation. */
  source?: ObservationSource;
  /** ISO time the result was obtained (or the refusal decided). */
  fetchedAt?: string;
}

/** What a tool call produced, as the model reads it. */
export type Observation =
  | ({ ok: true; data: unknown; truncated?: { originalChars: number; keptChars: number } } & ObservationEnvelope)
  | ({
      ok: false;
      errorCode: ErrorCode;
      message: string;
      /** With `rate_limited` from a configured limit: when the call may be proposed again. */
      retryAfterMs?: number;
      /** Configured alternative tools this user may call now. */
      fallback?: string[];
    } & ObservationEnvelope);

/**
 * How a person answered the pause a call waited in (design §4): kept on the call once the
 * pause is answered, and on its ToolMessage's artifact, so the result can say who decided
 * and what changed. `argsBefore` are the args the person was shown (raw; masked when viewed).
 */
export interface CallDecision {
  /** What the person chose; `expire` when no one answered in time and opspilot closed the pause (`SYSTEM_ACTOR`). */
  action: "approve" | "edit" | "reject" | "expire";
  /** Who answered. */
  userId: string;
  /** The note given with the answer (the reason of a rejection). */
  message?: string;
  /** The args the pause showed, before the answer filled or replaced them. */
  argsBefore: Record<string, unknown>;
  /**
   * The args as the answer gave them (the shown args with its params, or its edit), before the
   * tool's schema filled its defaults: what differs from `argsBefore` is what the person changed.
   * Absent on a rejection, and in answers recorded before it was kept.
   */
  argsAnswered?: Record<string, unknown>;
  /** Everyone whose approval of these args counted, in order, when the tool wanted more than one (four eyes). */
  approvers?: string[];
  /**
   * What the pause asked of the person: only to fill missing fields (`params`: a low-risk call,
   * so the answer is "filled by", not "approved by") or an approval; absent in answers recorded before it was kept.
   */
  kind?: "params" | "approval";
}

/** Metadata kept on every ToolMessage's `artifact`; never sent to the model. */
export interface ObservationMeta {
  /** Whether the call succeeded. */
  ok: boolean;
  /** Error class when it failed. */
  errorCode?: ErrorCode;
  /** One line for the step bar and the records. */
  summary: string;
  /** Wall time of the call, retries included. */
  durationMs: number;
  /** Attempts made (1 or 2). */
  attempts: number;
  /** Whether the observation was cut to the size cap. */
  truncated: boolean;
  /** The person's answer, when the call waited in a pause (absent in messages written before it existed). */
  decision?: CallDecision;
  /** The args the call ran with, when a person's answer approved or edited them (raw; masked when viewed). */
  args?: Record<string, unknown>;
  /** Set when the result holds content from a tool that is not `trusted`: reading it taints the thread. */
  untrusted?: boolean;
}
