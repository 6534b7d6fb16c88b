import { Hono, type Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import * as oidc from "openid-client";
import type { OidcSettings } from "../../config/oidc-settings.js";
import { isLoopback } from "../../models/providers/provider.js";
import type { Credentials } from "../../service/auth/credentials.js";
import { CredentialRefusal } from "../../service/auth/credentials.js";
import type { Logger } from "../../service/observability/logger.js";

/** The cookie that carries a sign-in's state and PKCE verifier from /auth/login to /auth/callback. */
const FLOW_COOKIE = "opspilot_sso";
const FLOW_TTL_S = 600;

/**
 * The page's single sign-on (authorization code with PKCE, `openid-client`): `/auth/login`
 * sends the browser to the provider, `/auth/callback` exchanges the code for an access token,
 * checks it as the API will (issuer, audience, a mapped group) and hands it to the page in the
 * URL fragment, which never reaches a server; the page then sends it as its bearer token.
 * The state and verifier ride in an HttpOnly cookie, so any replica can finish the sign-in.
 */
export function ssoRoutes(settings: OidcSettings & { clientId: string }, credentials: Credentials, logger: Logger) {
  let discovered: Promise<oidc.Configuration> | undefined;
  const configuration = () =>
    (discovered ??= discover(settings).catch((error: unknown) => {
      discovered = undefined;
      throw error;
    }));
  // Behind a TLS proxy the request's own address is the proxy's hop (http://…); the public address is the one registered.
  const callbackUrl = (c: Context) =>
    (settings.publicUrl
      ? new URL("auth/callback", withSlash(settings.publicUrl))
      : new URL("/auth/callback", c.req.url)
    ).href;
  const refuse = (c: Context, status: 400 | 401 | 403 | 503, message: string) =>
    c.html(page("Sign-in refused", message), status);

  return new Hono()
    .get("/login", async (c) => {
      let config: oidc.Configuration;
      try {
        config = await configuration();
      } catch (error) {
        logger.error("single sign-on: discovery failed", error);
        return refuse(c, 503, `The sign-in provider ${settings.issuer} could not be reached; try again.`);
      }
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      setCookie(c, FLOW_COOKIE, Buffer.from(JSON.stringify({ state, verifier })).toString("base64url"), {
        httpOnly: true,
        sameSite: "Lax",
        secure: new URL(c.req.url).protocol === "https:",
        path: "/auth",
        maxAge: FLOW_TTL_S,
      });
      const target = oidc.buildAuthorizationUrl(config, {
        redirect_uri: callbackUrl(c),
        scope: "openid profile",
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state,
        resource: settings.audience,
      });
      return c.redirect(target.href, 302);
    })
    .get("/callback", async (c) => {
      const flow = readFlow(getCookie(c, FLOW_COOKIE));
      deleteCookie(c, FLOW_COOKIE, { path: "/auth" });
      if (!flow) return refuse(c, 400, "This sign-in expired or was started elsewhere; start it again from the page.");
      let accessToken: string;
      try {
        const tokens = await oidc.authorizationCodeGrant(await configuration(), new URL(c.req.url), {
          pkceCodeVerifier: flow.verifier,
          expectedState: flow.state,
        });
        accessToken = tokens.access_token;
      } catch (error) {
        logger.error("single sign-on: the code exchange failed", error);
        return refuse(c, 401, "The sign-in provider did not confirm this sign-in; start it again from the page.");
      }
      try {
        if (!(await credentials.verify(accessToken)))
          return refuse(c, 401, "The provider's access token is not one opspilot accepts (it is not a JWT).");
      } catch (error) {
        if (error instanceof CredentialRefusal) return refuse(c, error.status, error.message);
        throw error;
      }
      return c.redirect(`/#sso_token=${encodeURIComponent(accessToken)}`, 303);
    });
}

/** Whether the page offers single sign-on (the page asks before it shows the button). */
export function ssoConfigRoute(settings: OidcSettings | undefined) {
  return new Hono().get("/config", (c) => c.json({ sso: Boolean(settings?.clientId) }));
}

async function discover(settings: OidcSettings & { clientId: string }): Promise<oidc.Configuration> {
  const issuer = new URL(settings.issuer);
  // Plain http is allowed only for a provider on this machine (development and tests).
  const insecure = issuer.protocol === "http:" && isLoopback(issuer);
  return oidc.discovery(issuer, settings.clientId, undefined, oidc.None(), {
    ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
    timeout: 5,
  });
}

function readFlow(cookie: string | undefined): { state: string; verifier: string } | undefined {
  if (!cookie) return undefined;
  try {
    const flow = JSON.parse(Buffer.from(cookie, "base64url").toString("utf8")) as {
      state?: unknown;
      verifier?: unknown;
    };
    return typeof flow.state === "string" && typeof flow.verifier === "string"
      ? { state: flow.state, verifier: flow.verifier }
      : undefined;
  } catch {
    return undefined;
  }
}

const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function page(title: string, message: string): string {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>${escape(title)}</title><main><h1>${escape(title)}</h1><p>${escape(message)}</p><p><a href="/">Back to opspilot</a></p></main></html>`;
}

/** `url` ending in "/", so paths resolve under it. */
function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}
