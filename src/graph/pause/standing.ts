import type { StateSnapshot } from "@langchain/langgraph";
import type { Batch } from "../state.js";
import type { WaitingCallPlan } from "../../contracts/calls.js";
import { PauseValueSchema, type PauseValue } from "../../contracts/pause/pause.js";

/**
 * The pause a thread waits on, if any (the latest interrupt of its pending tasks). A task
 * whose output is saved is past its pause: LangGraph keeps the answered interrupt beside
 * that output until the step's checkpoint is written, so a process that dies in between
 * leaves an interrupt that no answer can match any more.
 */
export function pendingInterrupt(snapshot: Pick<StateSnapshot, "tasks">): PauseValue | undefined {
  const interrupts = snapshot.tasks
    .filter((task) => task.result === undefined)
    .flatMap((task) => task.interrupts ?? []);
  const latest = interrupts[interrupts.length - 1];
  if (!latest) return undefined;
  const parsed = PauseValueSchema.safeParse(latest.value);
  return parsed.success ? parsed.data : undefined;
}

/** What a thread that no run holds offers the user (design §2.8): answer, continue, or write. */
export type ThreadStanding = { kind: "paused"; interrupt: PauseValue } | { kind: "unfinished" } | { kind: "idle" };

/**
 * Where a thread stands, from its latest checkpoint. A run whose process died is unfinished
 * whenever its step has tasks: those still to run and those whose output was saved before
 * the step's checkpoint was. `snapshot.next` leaves the second kind out, so it cannot tell
 * such a run from a finished one.
 */
export function threadStanding(snapshot: Pick<StateSnapshot, "tasks">): ThreadStanding {
  const interrupt = pendingInterrupt(snapshot);
  if (interrupt) return { kind: "paused", interrupt };
  return snapshot.tasks.length > 0 ? { kind: "unfinished" } : { kind: "idle" };
}

/** Calls of the batch that wait for the user. */
export function waitingCalls(batch: Batch | null): WaitingCallPlan[] {
  return (batch?.calls ?? []).filter(
    (call): call is WaitingCallPlan => call.status === "needs_params" || call.status === "needs_approval",
  );
}
