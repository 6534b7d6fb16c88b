import type { Batch } from "../state.js";
import type { WaitingCallPlan } from "../../contracts/calls.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { Decision } from "../../contracts/pause/pause.js";
import type { CallDecision } from "../../contracts/observation.js";
import type { Language } from "../../contracts/language.js";
import type { Role, RunUser } from "../../contracts/user.js";
import type { PauseExpiry } from "./interrupt.js";

/** What a resume is checked against besides the waiting calls. */
export interface ResumeContext {
  /** The tools the graph was built with. */
  registry: ToolRegistry;
  /** The user who answers, with the role of the credential they answer with. */
  answerer: RunUser;
  /** The thread's owner and the roles they hold now, where the caller knows them (a server's token table). */
  owner?: { id: string; roles: readonly Role[] };
  /** The run's language, for the observation a rejection writes (English when absent). */
  language?: Language;
  /** The pause being answered and when its approvals expire: a person's answer is refused after that, opspilot's expiry before. */
  pause?: { interruptId: string; deadline?: PauseExpiry };
  /** The user whose message started the run (`RunInfo.requestedBy`), for `approvals.distinctFromRequester`. */
  requestedBy?: string;
  /** Epoch ms of the answer (the clock by default). */
  now?: number;
}

/** A decision as the records keep it: a person's answer, or opspilot's expiry. */
export interface AnsweredDecision {
  callId: string;
  action: CallDecision["action"];
  message?: string;
}

/** Why a resume was refused: an answer that does not fit, or one its user may not give. */
export interface ResumeRefusal {
  ok: false;
  code: "resume_rejected" | "permission_denied";
  error: string;
}

/** One waiting call's decision, checked: a rejection, or the args it leaves (validated by the tool's schema). */
export type JudgedDecision =
  | { call: WaitingCallPlan; decision: Decision & { action: "reject" } }
  | {
      call: WaitingCallPlan;
      decision: Decision & { action: "approve" | "edit" };
      /** The args as the answer gave them (before the schema's defaults). */
      answeredArgs: Record<string, unknown>;
      /** The args the schema validated: what an approval freezes. */
      frozen: Record<string, unknown>;
      /** sha256 of the canonical frozen args. */
      frozenHash: string;
    };

/** A resume that fits the pause and its answerer's authority: what applying it will do, or a refusal. */
export type ResumeCheck =
  | { ok: true; kind: "answers"; answers: JudgedDecision[]; decisions: Decision[] }
  | { ok: true; kind: "expiry"; expiry: PauseExpiry }
  | ResumeRefusal;

/** A resume applied to a batch, or why it was refused. */
export type ResumeOutcome =
  | {
      ok: true;
      batch: Batch;
      decisions: AnsweredDecision[];
      /** Who decided: `SYSTEM_ACTOR` for an expiry, else absent (the answering user). */
      decidedBy?: RunUser;
    }
  | ResumeRefusal;
