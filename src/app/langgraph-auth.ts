import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { environmentVariables, loadEnv } from "../config/env.js";
import { loadConfig } from "../config/file.js";
import { oidcSettingsOf } from "../config/oidc-settings.js";
import { apiCredentials } from "../service/auth/api-credentials.js";
import { bearerToken, CredentialRefusal, LOCAL_USER, type Credentials } from "../service/auth/credentials.js";
import { AUTH_USER_OPEN, RUN_ENTRY_KEY } from "../graph/auth-user.js";

/**
 * The LangGraph server's auth (`langgraph.json` → `auth.path`): callers authenticate exactly
 * as on `npm start`, with `OPSPILOT_API_TOKENS` bearer tokens or the single sign-on provider's
 * access tokens (`OPSPILOT_OIDC_ISSUER`), and the run's user and role
 * come from the token (`config.configurable.langgraph_auth_user`). Threads are private: each
 * is stamped with its creator and every read, search, update, run and resume is filtered by
 * it, as on the HTTP API (admins included: a thread is its owner's alone). With no tokens
 * configured the server stays open for local development: every caller is the local user,
 * and a warning says so once.
 */
export function createLangGraphAuth(credentials: Credentials): Auth {
  if (!credentials.required)
    console.warn(
      "opspilot: neither OPSPILOT_API_TOKENS nor OPSPILOT_OIDC_ISSUER is set; the LangGraph server accepts every caller as the local user.",
    );
  return new Auth()
    .authenticate(async (request: Request) => {
      if (!credentials.required) return { identity: LOCAL_USER.id, permissions: [], [AUTH_USER_OPEN]: true };
      const token = bearerToken(request.headers.get("authorization"));
      const user = await credentials.verify(token ?? "").catch((error: unknown) => {
        if (error instanceof CredentialRefusal) throw new HTTPException(error.status, { message: error.message });
        throw error;
      });
      if (!user)
        throw new HTTPException(401, {
          message: "A valid Authorization: Bearer <token> header is required.",
          headers: { "WWW-Authenticate": 'Bearer realm="opspilot"' },
        });
      return { identity: user.id, display_name: user.id, role: user.role, permissions: [`role:${user.role}`] };
    })
    .on("threads:create", ({ user, value }) => {
      value.metadata = { ...(value.metadata ?? {}), owner: user.identity };
      return { owner: user.identity };
    })
    .on("threads:update", ({ user, value }) => {
      if (value.metadata && "owner" in value.metadata && value.metadata.owner !== user.identity)
        throw new HTTPException(403, { message: "A thread's owner cannot be changed." });
      return { owner: user.identity };
    })
    .on("threads:create_run", ({ user, value }) => {
      value.metadata = { ...(value.metadata ?? {}), owner: user.identity };
      stampRunEntry(value.kwargs);
      return { owner: user.identity };
    })
    .on("threads", ({ user }) => ({ owner: user.identity }))
    .on("crons:create", ({ user, value }) => {
      value.user_id = user.identity;
      return { owner: user.identity };
    })
    .on("crons", ({ user }) => ({ owner: user.identity }))
    .on("assistants:read", () => true)
    .on("assistants:search", () => true)
    .on("assistants", ({ user }) => {
      if (user.role !== "admin" && !user[AUTH_USER_OPEN])
        throw new HTTPException(403, { message: "Only an admin may create, change or delete assistants." });
      return true;
    })
    .on("store", ({ user, value }) => {
      const namespace = "namespace" in value ? value.namespace : undefined;
      if (!namespace || namespace[0] !== user.identity)
        throw new HTTPException(403, { message: `Store namespaces start with your user id (${user.identity}).` });
      return true;
    });
}

/** Writes the run's kind into its configurable (the server reads `kwargs.config` after this handler). */
function stampRunEntry(kwargs: Record<string, unknown>): void {
  const command = kwargs.command as { resume?: unknown } | null | undefined;
  const config = (kwargs.config ?? {}) as { configurable?: Record<string, unknown> };
  const entry = command != null && command.resume !== undefined ? "continue" : "start";
  kwargs.config = { ...config, configurable: { ...config.configurable, [RUN_ENTRY_KEY]: entry } };
}

/** The handler `langgraph.json` names: the static tokens and the single sign-on provider of `npm start`. */
export const auth = createLangGraphAuth(credentialsFromEnvironment());

function credentialsFromEnvironment(): Credentials {
  const env = loadEnv();
  const oidc = oidcSettingsOf(env, loadConfig(env.OPSPILOT_CONFIG, environmentVariables()));
  return apiCredentials({ tokens: env.OPSPILOT_API_TOKENS, ...(oidc ? { oidc } : {}) });
}
