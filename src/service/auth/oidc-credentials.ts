import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from "jose";
import type { RunUser } from "../../contracts/user.js";
import type { OidcSettings } from "../../config/oidc-settings.js";
import { CredentialRefusal, type Credentials } from "./credentials.js";

/** How long the provider's discovery document is trusted before it is read again. */
const DISCOVERY_TTL_MS = 10 * 60_000;

/** Whether a token looks like a JWT (three base64url parts), so opaque static tokens are not sent through jose. */
const looksLikeJwt = (token: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);

/**
 * Verifies access tokens against the issuer's JWKS (found through its discovery document and
 * cached by jose, which refetches on an unknown key id): signature, `iss`, `aud` and `exp`.
 * The user is `preferred_username`, else `sub`. A valid token whose groups map to no role is
 * refused with a message saying so; a token that fails a check is refused with the check.
 */
export function oidcCredentials(settings: OidcSettings): Credentials {
  let keys: { jwks: ReturnType<typeof createRemoteJWKSet>; readAt: number } | undefined;
  const jwks = async () => {
    if (keys && Date.now() - keys.readAt < DISCOVERY_TTL_MS) return keys.jwks;
    const url = `${settings.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
    const discovery = response?.ok
      ? ((await response.json().catch(() => undefined)) as { jwks_uri?: string })
      : undefined;
    if (!discovery?.jwks_uri)
      throw new CredentialRefusal(503, `The sign-in provider ${settings.issuer} could not be reached; try again.`);
    keys = { jwks: createRemoteJWKSet(new URL(discovery.jwks_uri)), readAt: Date.now() };
    return keys.jwks;
  };
  return {
    required: true,
    async verify(token) {
      if (!looksLikeJwt(token)) return undefined;
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, await jwks(), { issuer: settings.issuer, audience: settings.audience }));
      } catch (error) {
        if (error instanceof CredentialRefusal) throw error;
        throw new CredentialRefusal(401, refusalOf(error));
      }
      return userOf(payload, settings);
    },
  };
}

function refusalOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return "The access token has expired; sign in again.";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "iss") return "The access token was not issued by this server's sign-in provider.";
    if (error.claim === "aud") return "The access token is not meant for opspilot (its audience differs).";
    return `The access token's ${error.claim} claim is not valid.`;
  }
  return "The access token could not be verified.";
}

function userOf(payload: JWTPayload, settings: OidcSettings): RunUser {
  const name = [payload.preferred_username, payload.sub].find(
    (value): value is string => typeof value === "string" && value.length > 0,
  );
  if (!name) throw new CredentialRefusal(401, "The access token names no user (no preferred_username or sub).");
  const claim = payload[settings.groupsClaim];
  const groups = Array.isArray(claim)
    ? claim.filter((group) => typeof group === "string")
    : typeof claim === "string"
      ? [claim]
      : [];
  const match = settings.roles.find(([group]) => groups.includes(group));
  if (!match)
    throw new CredentialRefusal(
      403,
      `${name} holds no group that opspilot maps to a role (${settings.roles.map(([group]) => group).join(", ")}).`,
    );
  return { id: name, role: match[1] };
}
