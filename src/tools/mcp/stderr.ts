import type { Readable } from "node:stream";

/** Lines kept from the start of a server's stderr: where a failing server usually says why. */
export const STDERR_HEAD_LINES = 5;
/** Lines kept from the end of it: what it said last (often its usage text). */
export const STDERR_TAIL_LINES = 15;

/**
 * Reads a child's stderr as it comes (an unread pipe would stall the child) and keeps its
 * first `head` and last `tail` non-blank lines. The excerpt states the cut between them
 * ("… 180 lines cut …"), so the reason on a first line survives a long usage text after it.
 */
export function keepHeadAndTail(
  stream: Readable | null,
  head = STDERR_HEAD_LINES,
  tail = STDERR_TAIL_LINES,
): () => string {
  const first: string[] = [];
  const last: string[] = [];
  let cut = 0;
  let partial = "";
  /** Files one line into the head or the tail; returns how many lines fell out of the tail (0 or 1). */
  const take = (line: string, heads: string[], tails: string[]): number => {
    if (line.trim().length === 0) return 0;
    if (heads.length < head) {
      heads.push(line);
      return 0;
    }
    tails.push(line);
    if (tails.length <= tail) return 0;
    tails.shift();
    return 1;
  };
  stream?.setEncoding("utf8");
  stream?.on("data", (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) cut += take(line, first, last);
  });
  return () => {
    // A last line without its newline yet counts too, without being taken for good.
    const heads = [...first];
    const tails = [...last];
    const dropped = cut + take(partial, heads, tails);
    const gap = dropped > 0 ? [`… ${dropped} line${dropped === 1 ? "" : "s"} cut …`] : [];
    return [...heads, ...gap, ...tails].join("\n");
  };
}
