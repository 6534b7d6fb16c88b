import { ConfigError } from "../contracts/errors.js";
import type { Role } from "../contracts/user.js";
import type { Env } from "./env.js";
import type { ConfigFile } from "./schema.js";

/** Single sign-on: an OpenID provider's JWT access tokens, and how its groups become roles. */
export interface OidcSettings {
  /** The provider's issuer URL (`OPSPILOT_OIDC_ISSUER`). */
  issuer: string;
  /** The audience its access tokens must carry for opspilot (`OPSPILOT_OIDC_AUDIENCE`). */
  audience: string;
  /** Group → role, in the config file's order: the first group the token holds wins. */
  roles: ReadonlyArray<readonly [group: string, role: Role]>;
  /** The claim that lists the groups. */
  groupsClaim: string;
  /** The page's public client, when the page offers sign-in. */
  clientId?: string;
  /** Where people open the page (`OPSPILOT_PUBLIC_URL`): the sign-in's callback is built on it, else on the request's address. */
  publicUrl?: string;
}

/**
 * The single sign-on settings of the environment and the config file, or undefined when
 * `OPSPILOT_OIDC_ISSUER` is unset. An issuer without an audience or without `auth.oidc.roles`
 * is a `ConfigError`: every token would be refused, or any token for any API accepted.
 */
export function oidcSettingsOf(
  env: Pick<Env, "OPSPILOT_OIDC_ISSUER" | "OPSPILOT_OIDC_AUDIENCE" | "OPSPILOT_OIDC_CLIENT_ID" | "OPSPILOT_PUBLIC_URL">,
  config: Pick<ConfigFile, "auth">,
): OidcSettings | undefined {
  const issuer = env.OPSPILOT_OIDC_ISSUER;
  if (!issuer) return undefined;
  if (!env.OPSPILOT_OIDC_AUDIENCE)
    throw new ConfigError(
      "OPSPILOT_OIDC_ISSUER is set without OPSPILOT_OIDC_AUDIENCE; set the audience opspilot's access tokens carry.",
    );
  const oidc = config.auth?.oidc;
  if (!oidc)
    throw new ConfigError(
      'OPSPILOT_OIDC_ISSUER is set but the config file has no auth.oidc.roles; map groups to roles, e.g. { "sre-oncall": "operator" }.',
    );
  return {
    issuer,
    audience: env.OPSPILOT_OIDC_AUDIENCE,
    roles: Object.entries(oidc.roles),
    groupsClaim: oidc.groupsClaim,
    ...(env.OPSPILOT_OIDC_CLIENT_ID ? { clientId: env.OPSPILOT_OIDC_CLIENT_ID } : {}),
    ...(env.OPSPILOT_PUBLIC_URL ? { publicUrl: env.OPSPILOT_PUBLIC_URL } : {}),
  };
}
