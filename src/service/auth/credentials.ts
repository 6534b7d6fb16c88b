import { createHash } from "node:crypto";
import type { RunUser } from "../../contracts/user.js";

/** The user every caller acts as when no credentials are configured (local development). */
export const LOCAL_USER: RunUser = Object.freeze({ id: "local", role: "admin" });

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

/** A credential that was recognised and refused, with the status and the reason the caller is told. */
export class CredentialRefusal extends Error {
  constructor(
    readonly status: 401 | 403 | 503,
    message: string,
  ) {
    super(message);
    this.name = "CredentialRefusal";
  }
}

/** Credentials tried in turn: the first that knows a token decides it. */
export function anyCredentials(...sources: ReadonlyArray<Credentials | undefined>): Credentials {
  const present = sources.filter((source): source is Credentials => source !== undefined && source.required);
  return {
    required: present.length > 0,
    async verify(token) {
      for (const source of present) {
        const user = await source.verify(token);
        if (user) return user;
      }
      return undefined;
    },
  };
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
