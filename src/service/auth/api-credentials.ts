import type { RunUser } from "../../contracts/user.js";
import type { OidcSettings } from "../../config/oidc-settings.js";
import { anyCredentials, staticTokenCredentials, type Credentials } from "./credentials.js";
import { oidcCredentials } from "./oidc-credentials.js";

/** The credentials of a server: its static API tokens, then its single sign-on provider's access tokens. */
export function apiCredentials(auth: { tokens?: ReadonlyMap<string, RunUser>; oidc?: OidcSettings }): Credentials {
  return anyCredentials(staticTokenCredentials(auth.tokens), auth.oidc ? oidcCredentials(auth.oidc) : undefined);
}
