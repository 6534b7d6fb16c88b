import { AsyncLocalStorage } from "node:async_hooks";

/** The retries of the model call in progress, counted by the retry policy as it decides them. */
const current = new AsyncLocalStorage<{ retries: number }>();

/**
 * Runs `call` and counts the retries the model's retry policy decided within it (its
 * `onFailedAttempt` runs in the call's async context, however the model's caller queues it).
 */
export async function countingRetries<T>(call: () => Promise<T>): Promise<{ value: T; retries: number }> {
  const counter = { retries: 0 };
  const value = await current.run(counter, call);
  return { value, retries: counter.retries };
}

/** Tells the call in progress, if one is counting, that a failed attempt will be retried. */
export function countRetry(): void {
  const counter = current.getStore();
  if (counter) counter.retries += 1;
}
