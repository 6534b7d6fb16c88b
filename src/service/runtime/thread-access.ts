import { ThreadNotFoundError } from "../../contracts/errors.js";
import type { RunUser } from "../../contracts/user.js";
import { roleAllows, type ToolRegistry } from "../../tools/registry.js";
import { readThread, type ThreadReader } from "./read-thread.js";

/**
 * What a caller wants of a thread: anything its owner may do, to read and answer a pause another
 * person must approve, or (`expire`) opspilot's own closing of a pause whose time is up, which
 * goes on as whoever ran into the pause whether or not they may still see the thread.
 */
export type ThreadUse = "own" | "answer" | "expire";

/** Who may do what with a thread. */
export interface ThreadAccess {
  /**
   * How `user` may use the thread: as its owner, through a shared owner, or as another approver
   * (with the owner's id); else throws `ThreadNotFoundError`, as for a thread that does not exist.
   */
  check(threadId: string, user: RunUser, use?: ThreadUse): Promise<ThreadGrant>;
}

/** Why a user may use a thread; `owner` is the thread's owner. */
export interface ThreadGrant {
  owner: string;
  via: "owner" | "shared" | "approver" | "expiry";
}

/** What the rule is read from. */
export interface ThreadAccessDeps {
  storage: { threadOwner(threadId: string): Promise<string | undefined> };
  graph: ThreadReader;
  registry: ToolRegistry;
  /** Owners whose threads every operator and admin shares (the alert intake's user). */
  sharedOwners?: readonly string[];
}

/** Whether the user shares the threads of `sharedOwners` (and may approve four-eyes calls): operators and admins. */
export const answersPauses = (user: RunUser): boolean => user.role === "operator" || user.role === "admin";

/**
 * A thread is its owner's. Operators and admins share the threads of `sharedOwners`. And a pause
 * that waits for a four-eyes call (`approvals.required`, `distinctFromRequester`) is open to the
 * other people who may approve it: an operator or admin whose role may run the call's tool may
 * read the thread and answer the pause, for as long as it waits, and nothing else.
 */
export function createThreadAccess(deps: ThreadAccessDeps): ThreadAccess {
  const shared = new Set(deps.sharedOwners ?? []);

  async function approverOf(threadId: string, user: RunUser): Promise<boolean> {
    const { pause } = await readThread(deps.graph, threadId);
    return (pause?.calls ?? []).some((call) => {
      const tool = deps.registry.get(call.tool);
      return call.approvals !== undefined && tool !== undefined && roleAllows(tool, user.role);
    });
  }

  return {
    async check(threadId, user, use = "own") {
      const owner = await deps.storage.threadOwner(threadId);
      if (owner === undefined) throw new ThreadNotFoundError(threadId);
      if (use === "expire") return { owner, via: "expiry" };
      if (owner === user.id) return { owner, via: "owner" };
      if (shared.has(owner) && answersPauses(user)) return { owner, via: "shared" };
      if (use === "answer" && answersPauses(user) && (await approverOf(threadId, user)))
        return { owner, via: "approver" };
      throw new ThreadNotFoundError(threadId);
    },
  };
}
