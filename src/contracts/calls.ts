import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { CallDecision, ErrorCode } from "./observation.js";
import type { CallPreview, EgressNote, MissingField } from "./pause/pause.js";

/** A tool call the model proposed: a parsed call or one whose arguments were not valid JSON. */
export interface ProposedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** Why the arguments could not be parsed, for calls from `invalid_tool_calls`. */
  parseError?: string;
}

/** Every call an assistant message proposes, parsed and unparsable, in order. */
export function proposedCalls(message: BaseMessage): ProposedCall[] {
  if (!AIMessage.isInstance(message)) return [];
  const valid = (message.tool_calls ?? []).map((call) => ({
    id: call.id ?? "",
    name: call.name,
    args: (call.args ?? {}) as Record<string, unknown>,
  }));
  const invalid = (message.invalid_tool_calls ?? []).map((call) => ({
    id: call.id ?? "",
    name: call.name ?? "",
    args: {},
    parseError: call.error ?? "arguments are not valid JSON",
  }));
  return [...valid, ...invalid];
}

/** What every call of a batch carries, whatever the loop decided for it. */
export interface CallBase {
  /** Tool-call id from the model (made unique). */
  callId: string;
  /** Tool name as proposed. */
  tool: string;
  /** Args to run with: frozen once approved. */
  args: Record<string, unknown>;
  /** sha256 of the canonical args. */
  argsHash: string;
  /** Whether the tool only reads. */
  readOnly: boolean;
  /** Tool risk. */
  risk: "low" | "high";
  /** Set once the user approved or edited: the hash the approval is bound to. */
  approvedHash?: string;
  /** Set once a person answered the pause the call waited in: who, what, and the args they were shown. */
  decision?: CallDecision;
  /**
   * Every approval given so far to a call whose tool wants more than one (four eyes), oldest
   * first; only those of the current `argsHash` count. Absent for calls one approval decides.
   */
  approvals?: GivenApproval[];
  /**
   * Set on a call of an `egress` tool proposed after the thread read untrusted content: it
   * waits for a person as a high-risk call, with why and what of its args came from tool results.
   */
  egress?: EgressNote;
  /**
   * Set by `validate_calls` on an approval call whose tool makes dry runs: `result` is filled by
   * `execute_tools` before the pause, for these `argsHash`es (a preview of other args is stale).
   */
  preview?: { argsHash: string; result?: CallPreview };
}

/** One person's approval of a call's args, kept while a four-eyes call waits for the next. */
export interface GivenApproval {
  /** Who approved. */
  userId: string;
  /** The role they approved with. */
  role: string;
  /** The args they approved. */
  argsHash: string;
  /** Epoch ms of the approval. */
  at: number;
}

/** A call that runs in this step. */
export interface ReadyCall extends CallBase {
  /** Where the call stands. */
  status: "ready";
}

/** A call waiting for fields only the user can give; a high-risk one also waits for the approval of its final args. */
export interface NeedsParamsCall extends CallBase {
  /** Where the call stands. */
  status: "needs_params";
  /** The fields to ask for; an answer's `params` may fill these and nothing else. */
  missing: MissingField[];
  /** Why the call waits, when the tool itself asked mid-run. */
  reason?: string;
}

/** A high-risk call waiting for the user's approval. */
export interface NeedsApprovalCall extends CallBase {
  /** Where the call stands. */
  status: "needs_approval";
}

/** A call that does not run: the executor writes `failure` as its observation. */
export interface FailedCall extends CallBase {
  /** Where the call stands. */
  status: "failed";
  /** The observation written instead of running. */
  failure: { errorCode: ErrorCode; message: string };
}

/** A call whose result is written. */
export interface DoneCall extends CallBase {
  /** Where the call stands. */
  status: "done";
}

/** One call of the batch the model proposed, with what the loop decided for it. */
export type PlannedCall = ReadyCall | NeedsParamsCall | NeedsApprovalCall | FailedCall | DoneCall;

/** A call that waits for the user. */
export type WaitingCallPlan = NeedsParamsCall | NeedsApprovalCall;

/** The shared fields of a call, so a new status never carries the fields of the old one. */
export function callBase(call: PlannedCall): CallBase {
  const { callId, tool, args, argsHash, readOnly, risk, approvedHash, decision, approvals, egress, preview } = call;
  return {
    callId,
    tool,
    args,
    argsHash,
    readOnly,
    risk,
    ...(approvedHash !== undefined ? { approvedHash } : {}),
    ...(decision !== undefined ? { decision } : {}),
    ...(approvals !== undefined ? { approvals } : {}),
    ...(egress !== undefined ? { egress } : {}),
    ...(preview !== undefined ? { preview } : {}),
  };
}
