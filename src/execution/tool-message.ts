import { ToolMessage } from "@langchain/core/messages";
import {
  carriesToolContent,
  type CallDecision,
  type ErrorCode,
  type Observation,
  type ObservationMeta,
} from "../contracts/observation.js";
import type { ProposedCall } from "../contracts/calls.js";
import { boundObservation } from "./sanitize.js";

/**
 * Builds the one ToolMessage of a call: bounded, masked content and its metadata as the
 * artifact. Every content carries `source` and `fetchedAt` (design §3): an observation that
 * never reached a tool (refused, skipped, not executed) is stamped here, naming the tool.
 */
export function toolMessage(options: {
  callId: string;
  tool: string;
  observation: Observation;
  durationMs: number;
  attempts: number;
  maxChars: number;
  /** How a person answered the pause the call waited in, if it did. */
  decision?: CallDecision;
  /** The args the call ran with (kept on the artifact only with an approving or editing `decision`). */
  args?: Record<string, unknown>;
  /** Whether the observation's `data` is masked already, so it is not masked again. */
  dataMasked?: boolean;
  /** `JSON.stringify` of that masked `data`, when the caller has written it already. */
  dataJson?: string;
  /** The tool is not `trusted`: a result that holds its content taints the thread (marked for clients). */
  untrusted?: boolean;
}): ToolMessage {
  const { source, fetchedAt, ...outcome } = options.observation;
  const enveloped = {
    ...outcome,
    source: source ?? { tool: options.tool },
    fetchedAt: fetchedAt ?? new Date().toISOString(),
  } as Observation;
  const bounded = boundObservation(enveloped, options.maxChars, options.callId, options.dataMasked, options.dataJson);
  const meta: ObservationMeta = {
    ok: bounded.observation.ok,
    ...(bounded.observation.ok ? {} : { errorCode: bounded.observation.errorCode }),
    summary: summarize(bounded.observation),
    durationMs: options.durationMs,
    attempts: options.attempts,
    truncated: bounded.truncated,
    // Kept for clients: who answered, and the args that ran when the answer approved or edited them.
    ...(options.decision ? { decision: options.decision } : {}),
    ...(options.decision && options.decision.action !== "reject" ? { args: options.args } : {}),
    ...(options.untrusted && carriesToolContent(bounded.observation.ok ? undefined : bounded.observation.errorCode)
      ? { untrusted: true }
      : {}),
  };
  return new ToolMessage({
    // A deterministic id: if the node runs again after a crash, the reducer replaces instead of duplicating.
    id: `tool-${options.callId}`,
    tool_call_id: options.callId,
    name: options.tool,
    content: bounded.content,
    status: meta.ok ? "success" : "error",
    artifact: meta,
  });
}

/** The results of calls that will not run: one failed observation each, with the same message. */
export function notExecuted(
  calls: readonly ProposedCall[],
  failure: { errorCode: ErrorCode; message: string },
  maxChars: number,
): ToolMessage[] {
  return calls.map((call) =>
    toolMessage({
      callId: call.id,
      tool: call.name,
      observation: { ok: false, ...failure },
      durationMs: 0,
      attempts: 0,
      maxChars,
    }),
  );
}

/**
 * Characters a summary keeps of the data's JSON. A string's JSON spends at least one character
 * on each of its characters, after the opening quote, so the string's first SUMMARY_CHARS
 * characters decide the first SUMMARY_CHARS of its JSON, surrogate pairs included.
 */
const SUMMARY_CHARS = 160;

/** One line describing an observation, for the step bar, the records and stop summaries. */
export function summarize(observation: Observation): string {
  if (!observation.ok) return `${observation.errorCode}: ${observation.message}`.slice(0, 200);
  const data = observation.data as Record<string, unknown> | unknown[] | null;
  if (Array.isArray(data)) return `${data.length} item(s)`;
  if (data && typeof data === "object") {
    const parts: string[] = [];
    if (Array.isArray(data.results)) parts.push(`${data.results.length} result(s)`);
    if (typeof data.total === "number") parts.push(`${data.total} match(es)`);
    if (typeof data.action === "string")
      parts.push(`${data.action} ${String(data.service ?? "")} ${String(data.environment ?? "")}`.trim());
    if (parts.length > 0) return parts.join(", ");
  }
  // A cut result's data is its preview, thousands of characters: only the start that shows is written.
  const shown = typeof observation.data === "string" ? observation.data.slice(0, SUMMARY_CHARS) : data;
  return JSON.stringify(shown ?? null).slice(0, SUMMARY_CHARS);
}
