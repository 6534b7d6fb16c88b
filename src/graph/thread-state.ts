import type { StateSnapshot } from "@langchain/langgraph";
import { InterruptValueSchema, type InterruptValue } from "../contracts/pause.js";

/** The pause a thread waits on, if any (the latest interrupt of its pending tasks). */
export function pendingInterrupt(snapshot: StateSnapshot): InterruptValue | undefined {
  const interrupts = snapshot.tasks.flatMap((task) => task.interrupts ?? []);
  const latest = interrupts[interrupts.length - 1];
  if (!latest) return undefined;
  const parsed = InterruptValueSchema.safeParse(latest.value);
  return parsed.success ? parsed.data : undefined;
}
