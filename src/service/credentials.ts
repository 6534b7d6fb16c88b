import { createHash } from "node:crypto";
import type { RunUser } from "../contracts/user.js";

/** The user every caller acts as when no credentials are configured (local development). */
export const LOCAL_USER: RunUser = Object.freeze({ id: "local", role: "operator" });

/**
 * How a bearer token becomes a user, shared by `npm start`'s HTTP API and the LangGraph
 * server's auth handler, so both surfaces know the same callers.
 */
export interface Credentials {
  /** Whether callers must present a token (false: everyone is the local user). */
  readonly required: boolean;
  /** The user a token stands for, or undefined when it stands for none. */
  verify(token: string): Promise<RunUser | undefined>;
}

/** Tokens are looked up by digest, so the lookup's timing says nothing about the secret. */
export function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The static API tokens of `OPSPILOT_API_TOKENS` (token → user and role). */
export function staticTokenCredentials(tokens: ReadonlyMap<string, RunUser> | undefined): Credentials {
  const users = new Map([...(tokens ?? [])].map(([token, user]) => [tokenDigest(token), user]));
  return {
    required: users.size > 0,
    verify: async (token) => users.get(tokenDigest(token)),
  };
}

/** Reads the bearer token of an `Authorization` header, or undefined. */
export function bearerToken(header: string | null | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}
