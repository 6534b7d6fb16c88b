/** Waits for the promises to settle, or for `ms`, whichever comes first. */
export async function settleWithin(promises: Array<Promise<unknown>>, ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
