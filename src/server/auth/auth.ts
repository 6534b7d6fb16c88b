import type { MiddlewareHandler } from "hono";
import type { CurrentRoles, Role, RunUser } from "../../contracts/user.js";
import type { OidcSettings } from "../../config/oidc-settings.js";
import { apiCredentials } from "../../service/auth/api-credentials.js";
import { bearerToken, CredentialRefusal, LOCAL_USER, tokenDigest as digest } from "../../service/auth/credentials.js";
import { RequestError } from "../http-errors.js";

/**
 * Who may call the API. Without tokens (undefined or empty) the server serves the single
 * local user and binds only to loopback.
 */
export interface ServerAuth {
  /** Bearer token → user and role, as `loadEnv()` parses `OPSPILOT_API_TOKENS`. */
  tokens?: ReadonlyMap<string, RunUser>;
  /** Single sign-on: the OpenID provider whose access tokens are accepted beside the static tokens. */
  oidc?: OidcSettings;
  /** Bearer token of the Prometheus scraper (`OPSPILOT_METRICS_TOKEN`); it opens `/metrics` and nothing else. */
  metricsToken?: string;
}

/** Variables the API's handlers read from the context. */
export interface AppEnv {
  Variables: {
    /** The authenticated caller. */
    user: RunUser;
  };
}

/**
 * The runtime's view of the token table: every role a user id holds through its tokens, so a
 * pause answered later is judged by the owner's roles today (a user with no token left holds
 * none). Undefined without tokens, where the single local user is not managed.
 */
export function currentRolesOf(auth: ServerAuth | undefined): CurrentRoles | undefined {
  const tokens = auth?.tokens;
  if (!tokens || tokens.size === 0) return undefined;
  // A single sign-on user's roles live at the provider and come with each token: judged by the answering token alone.
  const unmanaged = auth?.oidc ? undefined : [];
  const byUser = new Map<string, Role[]>();
  for (const user of tokens.values()) {
    const roles = byUser.get(user.id) ?? [];
    if (!roles.includes(user.role)) roles.push(user.role);
    byUser.set(user.id, roles);
  }
  return (userId) => byUser.get(userId) ?? unmanaged;
}

/** Whether the auth configuration requires tokens. */
export function requiresTokens(auth: ServerAuth | undefined): boolean {
  return (auth?.tokens?.size ?? 0) > 0 || auth?.oidc !== undefined;
}

/** Middleware that sets `user`: from the bearer token when tokens are configured, else the local user. */
export function authenticate(
  auth: ServerAuth | undefined,
  credentials = apiCredentials(auth ?? {}),
): MiddlewareHandler<AppEnv> {
  if (!credentials.required) {
    return async (c, next) => {
      c.set("user", LOCAL_USER);
      await next();
    };
  }
  return async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    const user = await credentials.verify(token ?? "").catch((error: unknown) => {
      if (!(error instanceof CredentialRefusal)) throw error;
      if (error.status === 401) c.header("WWW-Authenticate", 'Bearer realm="opspilot", error="invalid_token"');
      throw new RequestError(
        error.status,
        error.status === 403 ? "forbidden" : error.status === 503 ? "unavailable" : "unauthorized",
        error.message,
      );
    });
    if (!user) {
      c.header("WWW-Authenticate", 'Bearer realm="opspilot"');
      throw new RequestError(401, "unauthorized", "A valid Authorization: Bearer <token> header is required.");
    }
    c.set("user", user);
    await next();
  };
}

/**
 * Middleware guarding `/metrics`: with any token configured it takes the metrics token or an
 * admin API token, because the figures describe every user's runs and tools. With no token
 * at all the server is bound to loopback and the endpoint stays open for a local scraper.
 */
export function authorizeMetrics(auth: ServerAuth | undefined): MiddlewareHandler<AppEnv> {
  const tokens = auth?.tokens ?? new Map<string, RunUser>();
  if (tokens.size === 0 && auth?.metricsToken === undefined) return async (_c, next) => next();
  const allowed = new Set([...tokens].filter(([, user]) => user.role === "admin").map(([token]) => digest(token)));
  if (auth?.metricsToken !== undefined) allowed.add(digest(auth.metricsToken));
  const apiTokens = new Set([...tokens].map(([token]) => digest(token)));
  return async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    const presented = token === undefined ? undefined : digest(token);
    if (presented !== undefined && allowed.has(presented)) return next();
    if (presented !== undefined && apiTokens.has(presented))
      throw new RequestError(403, "forbidden", "Only the metrics token or an admin API token may read /metrics.");
    c.header("WWW-Authenticate", 'Bearer realm="opspilot"');
    throw new RequestError(
      401,
      "unauthorized",
      "/metrics needs an Authorization: Bearer header with OPSPILOT_METRICS_TOKEN or an admin API token.",
    );
  };
}
