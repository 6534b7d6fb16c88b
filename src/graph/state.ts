import { z } from "zod";
import { Annotation, MessagesAnnotation, MessagesZodMeta } from "@langchain/langgraph";
import { registry } from "@langchain/langgraph/zod";
import type { Language } from "../contracts/language.js";
import type { CallDecision, ErrorCode } from "../contracts/observation.js";
import type { StopReason } from "../contracts/stop-reasons.js";
import type { MissingField } from "../contracts/pause.js";
import { applyMemoryUpdate, emptyMemory, type MemoryUpdate, type WorkingMemory } from "./memory.js";

/** Bookkeeping of the current run; reset when a new user message starts a run. */
export interface RunInfo {
  /** Id of the run (records, events). */
  runId: string;
  /** Epoch ms the active clock started; moved forward over pauses so waiting is not counted. */
  startedAt: number;
  /** Epoch ms of the last node that did work; lets a resume exclude the pause from the wall time. */
  lastActiveAt: number;
  /** Model turns so far in this run. */
  steps: number;
  /** Consecutive steps in which every call failed (rejections, cancels and skips do not count). */
  failsInRow: number;
  /** Pauses for an approval so far in this run (absent in runs checkpointed before it was counted). */
  approvalPauses?: number;
  /** Fingerprints of the last few steps' calls, newest last (loop detection). */
  recentSteps: string[];
  /** Tokens spent by this run. */
  tokens: number;
  /** Dollars spent by this run, from the configured prices. */
  costUsd: number;
  /** Cost units spent by tools that declare `costUnits` (absent until one does, and in older checkpoints). */
  toolCostUnits?: number;
  /** Language of the user's message, for the messages the loop writes itself. */
  language: Language;
  /** Whether this run was resumed from a pause at least once. */
  resumed: boolean;
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
  const { callId, tool, args, argsHash, readOnly, risk, approvedHash, decision } = call;
  return {
    callId,
    tool,
    args,
    argsHash,
    readOnly,
    risk,
    ...(approvedHash !== undefined ? { approvedHash } : {}),
    ...(decision !== undefined ? { decision } : {}),
  };
}

/** The batch of calls of the latest model turn. */
export interface Batch {
  /** Step the batch belongs to. */
  step: number;
  /** The calls, in the model's order. */
  calls: PlannedCall[];
}

/** Why the run stopped, when a limit, a cancel or an error stopped it. */
export interface StopInfo {
  /** Stop reason of design §5. */
  reason: StopReason;
  /** One sentence for the final message. */
  detail: string;
}

const lastValue = <T>(initial: () => T) => Annotation<T>({ reducer: (_left, right) => right, default: initial });

/** The graph state, declared once. */
export const AgentState = Annotation.Root({
  /** Conversation: user, assistant and tool messages, in order. */
  messages: MessagesAnnotation.spec.messages,
  /** Counters and clock of the current run. */
  run: lastValue<RunInfo | null>(() => null),
  /** Calls of the latest model turn and their status. */
  batch: lastValue<Batch | null>(() => null),
  /** Set when the run stops on a limit, a cancel or an error. */
  stop: lastValue<StopInfo | null>(() => null),
  /** Working memory: a compact entry per finished call, merged when it outgrows its share of the window (design §2.10). */
  memory: Annotation<WorkingMemory, MemoryUpdate>({ reducer: applyMemoryUpdate, default: emptyMemory }),
});

/** Graph state. */
export type AgentStateType = typeof AgentState.State;
/** Partial update a node returns. */
export type AgentStateUpdate = typeof AgentState.Update;

/**
 * What callers send to start a run: just the new messages. A zod object (not an Annotation)
 * so the LangGraph server can publish it as the input schema Studio draws its form from.
 */
export const AgentInput = z.object({
  /** The user's new message(s). */
  messages: z
    .array(z.any())
    .describe('The user\'s new message(s), e.g. [{ role: "user", content: "..." }]')
    .register(registry, MessagesZodMeta),
});
