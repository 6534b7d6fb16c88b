import { KNOWN_ROLES, type RunUser } from "../contracts/user.js";

/** Marks the user of a LangGraph server without credentials configured: runs keep the user and role of their options. */
export const AUTH_USER_OPEN = "opspilot_open";

/**
 * Where a run's kind reaches the graph factory: `start` for a new run, `continue` for a resume
 * (a `command` with `resume`). Set by the auth handler on every run it admits, whatever the
 * caller sent, so the runs-per-day quota counts new runs only.
 */
export const RUN_ENTRY_KEY = "opspilot_run_entry";

/** The LangGraph server's authenticated caller, as it stamps every run's `config.configurable`. */
export const AUTH_USER_KEY = "langgraph_auth_user";

/** A caller the LangGraph server authenticated that opspilot cannot act for. */
export class UnknownAuthUserError extends Error {
  constructor(detail: string) {
    super(`The authenticated caller cannot run opspilot: ${detail}`);
    this.name = "UnknownAuthUserError";
  }
}

/**
 * The user and role a run acts as when the LangGraph server authenticated its caller
 * (`configurable.langgraph_auth_user`), which override whatever the run's context or
 * configurable claim. Undefined when no caller was authenticated or the server is open
 * (no credentials configured). A caller without an opspilot role (LangGraph's Studio user,
 * another auth handler's user) is refused rather than given a default.
 */
export function authenticatedUser(configurable: Record<string, unknown> | undefined): RunUser | undefined {
  const caller = configurable?.[AUTH_USER_KEY];
  if (caller === undefined || caller === null) return undefined;
  if (typeof caller !== "object") throw new UnknownAuthUserError("the server passed no user object.");
  const { identity, role } = caller as Record<string, unknown>;
  if ((caller as Record<string, unknown>)[AUTH_USER_OPEN] === true) return undefined;
  if (typeof identity !== "string" || identity.length === 0)
    throw new UnknownAuthUserError("the caller has no identity.");
  if (typeof role !== "string" || !(KNOWN_ROLES as readonly string[]).includes(role))
    throw new UnknownAuthUserError(
      `${identity} has no opspilot role (${KNOWN_ROLES.join(", ")}); authenticate with an opspilot token.`,
    );
  return { id: identity, role };
}
