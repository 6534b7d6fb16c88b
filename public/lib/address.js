// The thread id lives in the address (`?thread=<id>`, or `#<id>`), so a reload reopens it.

/** The thread id of the current address, or undefined. */
export function threadIdFromAddress() {
  const url = new URL(location.href);
  return url.searchParams.get("thread") || decodeURIComponent(url.hash.slice(1)) || undefined;
}

/** Writes the thread id into the address without adding a history entry. */
export function putThreadIdInAddress(threadId) {
  const url = new URL(location.href);
  url.hash = "";
  if (threadId) url.searchParams.set("thread", threadId);
  else url.searchParams.delete("thread");
  history.replaceState(null, "", url);
}
