import { randomUUID } from "node:crypto";
import { HumanMessage } from "@langchain/core/messages";
import { Command, START } from "@langchain/langgraph";
import type { ToolRegistry } from "../../tools/registry.js";
import type { CurrentRoles, RunUser } from "../../contracts/user.js";
import {
  NotPausedError,
  NothingToRecoverError,
  PermissionDeniedError,
  ResumeRejectedError,
  ThreadPausedError,
  ThreadUnfinishedError,
} from "../../contracts/errors.js";
import { checkResume } from "../../graph/pause.js";
import type { ThreadSnapshot } from "./read-thread.js";
import { startsNewRun } from "../../graph/run-info.js";

/** What a run starts from: its id and the graph input (a new message, a resume, or nothing to continue). */
export interface RunPlan {
  runId: string;
  input: { messages: HumanMessage[] } | Command | null;
}

/**
 * Decides a run from the thread's state read under its lease; throws the refusal when the
 * thread is not in the state the request needs. Pure but for new ids.
 */
export type Planner = (snapshot: ThreadSnapshot, thread: PlannedThread) => RunPlan;

/** What the runtime knows of the thread besides its state. */
export interface PlannedThread {
  /** The thread's owner, whose current roles bind an approval; undefined on a thread a shared owner (the alert intake) holds. */
  owner: string | undefined;
}

/** A new message starts a run only on an idle thread: a pause must be answered and an unfinished run recovered first. */
export function planStart(threadId: string, message: string): Planner {
  return (snapshot) => {
    const standing = snapshot.standing.kind;
    if (standing === "paused") throw new ThreadPausedError(threadId);
    if (standing === "unfinished") throw new ThreadUnfinishedError(threadId);
    return { runId: randomUUID(), input: { messages: [new HumanMessage({ id: randomUUID(), content: message })] } };
  };
}

/**
 * A resume continues the paused run when the answer fits the pause and the answering user
 * (and, where known, the owner's current roles) may run what it approves (design §4, §2.9).
 * The answer is only checked here, so a refusal changes nothing; `review_calls` applies it.
 */
export function planResume(options: {
  threadId: string;
  resume: unknown;
  user: RunUser;
  registry: ToolRegistry;
  currentRoles?: CurrentRoles;
}): Planner {
  return (snapshot, thread) => {
    const state = snapshot.values;
    if (!snapshot.pause || !state.batch) throw new NotPausedError(options.threadId);
    // On a shared thread, the answering user's own current roles stand in for an owner's.
    const ownerId = thread.owner ?? options.user.id;
    const ownerRoles = options.currentRoles?.(ownerId);
    const outcome = checkResume(state.batch, options.resume, {
      registry: options.registry,
      answerer: options.user,
      ...(ownerRoles ? { owner: { id: ownerId, roles: ownerRoles } } : {}),
      ...(state.run?.requestedBy !== undefined ? { requestedBy: state.run.requestedBy } : {}),
    });
    if (!outcome.ok) {
      throw outcome.code === "permission_denied"
        ? new PermissionDeniedError(outcome.error)
        : new ResumeRejectedError(outcome.error);
    }
    return { runId: state.run?.runId ?? randomUUID(), input: new Command({ resume: options.resume }) };
  };
}

/** Recovery continues a run whose process died mid-step, from its last checkpoint. */
export function planRecover(threadId: string): Planner {
  return (snapshot) => {
    if (snapshot.standing.kind !== "unfinished") throw new NothingToRecoverError(threadId);
    const state = snapshot.values;
    // A process that died before the model saw the new message had not started its run yet: the message
    // is last in the thread, or, when the process died right after saving the run's input, still that input.
    const inputPending = snapshot.tasks.some((task) => task.name === START);
    const started = state.run !== null && !inputPending && !startsNewRun(state.messages);
    return { runId: started ? state.run!.runId : randomUUID(), input: null };
  };
}
