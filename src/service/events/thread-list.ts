import { HumanMessage } from "@langchain/core/messages";
import type { OpsPilotGraph } from "../../agent/graph.js";
import { messageText } from "../../graph/run-info.js";
import type { Storage } from "../../storage/types.js";
import type { RunUser } from "../../contracts/user.js";
import type { ThreadListItem } from "../runtime/runtime.js";
import { readThread } from "../runtime/read-thread.js";
import { answersPauses } from "../runtime/thread-access.js";

/** Longest title the thread list shows, in characters (the ellipsis included). */
export const TITLE_MAX_CHARS = 80;
/** How many threads `GET /api/threads` lists when the request does not say. */
export const DEFAULT_THREAD_LIST_LIMIT = 50;
/** The most threads one request may list. */
export const MAX_THREAD_LIST_LIMIT = 200;

/**
 * A thread's title from its first user message: one line, cut on a word (or, in text without
 * spaces such as Chinese, on a character) with an ellipsis when longer than `TITLE_MAX_CHARS`.
 */
export function threadTitle(message: string): string {
  const line = message.replace(/\s+/g, " ").trim();
  if (line.length <= TITLE_MAX_CHARS) return line;
  const cut = line.slice(0, TITLE_MAX_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space >= TITLE_MAX_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * The threads the user may open from the list: their own and, when asked, for an operator or admin,
 * those of `sharedOwners` (incidents' and scheduled checks' threads), waiting ones first, then the most
 * recently active (design §6). A thread written before titles were kept gets its title from its
 * checkpoint once, here.
 */
export async function listThreads(options: {
  storage: Storage;
  graph: OpsPilotGraph;
  user: RunUser;
  limit: number;
  /** Owners whose threads every operator and admin shares (the alert user), when the list should hold them. */
  sharedOwners?: readonly string[];
}): Promise<ThreadListItem[]> {
  const { storage, graph, user, limit } = options;
  const owners = new Set([user.id, ...(answersPauses(user) ? (options.sharedOwners ?? []) : [])]);
  const lists = await Promise.all([...owners].map((owner) => storage.listThreads(owner, limit)));
  // Each owner's list comes in the storage's order; several are merged by the same keys.
  const rows =
    lists.length === 1
      ? lists[0]!
      : lists
          .flat()
          .sort(
            (x, y) =>
              Number(y.waiting) - Number(x.waiting) ||
              y.updatedAt - x.updatedAt ||
              x.threadId.localeCompare(y.threadId),
          )
          .slice(0, limit);
  return Promise.all(
    rows.map(async (row): Promise<ThreadListItem> => {
      let title = row.title;
      if (title === undefined && row.hasEvents) {
        const { values } = await readThread(graph, row.threadId);
        const first = values.messages.find((message) => HumanMessage.isInstance(message));
        if (first) {
          title = threadTitle(messageText(first));
          await storage.setThreadTitle(row.threadId, title);
        }
      }
      return {
        threadId: row.threadId,
        status: row.leased ? "running" : row.waiting ? "interrupted" : "idle",
        title: title ?? "",
        updatedAt: new Date(row.updatedAt).toISOString(),
        waitingForYou: row.waiting,
      };
    }),
  );
}
