import type { RunnableConfig } from "@langchain/core/runnables";
import type { RunOptions } from "./config.js";
import type { RunUser } from "../contracts/user.js";

/** The thread id of a graph invocation ("default" outside a checkpointed run). */
export function threadIdOf(config: RunnableConfig): string {
  const threadId = config.configurable?.thread_id;
  return typeof threadId === "string" && threadId.length > 0 ? threadId : "default";
}

/** The user a run acts for. */
export function userOf(options: Pick<RunOptions, "userId" | "role">): RunUser {
  return { id: options.userId, role: options.role };
}
