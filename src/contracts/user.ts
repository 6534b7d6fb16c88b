/** Roles an API token may carry; a typo in a token's role would silently lock a user out of every tool. */
export const KNOWN_ROLES = ["viewer", "operator", "admin"] as const;

/**
 * The actor opspilot itself acts as where no person decided (a pause whose approvals
 * expired): its id cannot be a token's user (tokens' ids have no `:`) and its role is none a
 * credential can carry, so the records never mistake it for a person.
 */
export const SYSTEM_ACTOR: Readonly<RunUser> = Object.freeze({ id: "opspilot:system", role: "system" });

/** A role that decides which tools a user may run; tools list the roles allowed to call them. */
export type Role = string;

/** The user on whose behalf a run acts. */
export interface RunUser {
  /** Stable user id (records, thread ownership). */
  id: string;
  /** Role that decides which tools may run. */
  role: Role;
}

/**
 * The roles a user id holds now (one per API token it still has), so an answer given long
 * after a pause is judged by today's roles. Undefined when users are not managed (no
 * tokens: the single local user); an empty list when the user has no token left.
 */
export type CurrentRoles = (userId: string) => readonly Role[] | undefined;
