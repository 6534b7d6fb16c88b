import { z } from "zod";
import { KNOWN_ROLES, type RunUser } from "../../contracts/user.js";
import { integer } from "./values.js";

const TOKEN_ENTRY = /^([^\s=,]{8,})=([A-Za-z0-9._@-]+):([a-z_]+)$/;

/** Parses `token=user:role,token2=user2:role2` into a token → user map, reporting the first bad entry. */
function parseApiTokens(value: string, ctx: z.RefinementCtx): ReadonlyMap<string, RunUser> {
  const tokens = new Map<string, RunUser>();
  const entries = value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  for (const [index, entry] of entries.entries()) {
    const match = TOKEN_ENTRY.exec(entry);
    const [, token, userId, role] = match ?? [];
    let problem: string | undefined;
    if (!token || !userId || !role)
      problem = "must look like token=user:role (token at least 8 characters, no spaces, '=' or ',')";
    else if (!(KNOWN_ROLES as readonly string[]).includes(role))
      problem = `role "${role}" is not one of ${KNOWN_ROLES.join(", ")}`;
    else if (tokens.has(token)) problem = "repeats a token already listed";
    if (problem || !token || !userId || !role) {
      // The entry itself is never echoed: it holds a secret.
      ctx.addIssue({ code: "custom", message: `entry ${index + 1} ${problem}` });
      return z.NEVER;
    }
    tokens.set(token, Object.freeze({ id: userId, role }));
  }
  return tokens;
}

/** Who may call: API tokens, single sign-on, the scraper, alert and chat integrations, the request rate. */
export const ACCESS_VARS = {
  OPSPILOT_API_TOKENS: z
    .string()
    .transform(parseApiTokens)
    .optional()
    .describe(
      "API bearer tokens: token=user:role,token2=user2:role2 (roles: viewer, operator, admin); unset serves only the local user",
    ),
  OPSPILOT_OIDC_ISSUER: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .optional()
    .describe(
      "OpenID provider whose JWT access tokens the HTTP API, the page and the LangGraph server accept (roles from auth.oidc.roles of the config file)",
    ),
  OPSPILOT_OIDC_AUDIENCE: z
    .string()
    .min(1)
    .optional()
    .describe("The audience (aud) the provider's access tokens must carry for opspilot; required with the issuer"),
  OPSPILOT_OIDC_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .describe("Public client id the page signs in with (authorization code with PKCE); unset: no sign-in button"),
  OPSPILOT_METRICS_TOKEN: z
    .string()
    .regex(/^\S{8,}$/, { error: "must be at least 8 characters without spaces" })
    .optional()
    .describe("Bearer token a Prometheus scraper sends to GET /metrics (an admin API token works too)"),
  OPSPILOT_ALERT_TOKEN: z
    .string()
    .regex(/^\S{16,}$/, { error: "must be at least 16 characters without spaces" })
    .optional()
    .describe("Bearer token Alertmanager sends to POST /api/alerts/alertmanager; unset turns alert intake off"),
  OPSPILOT_PAGERDUTY_SECRET: z
    .string()
    .regex(/^\S{16,}$/, { error: "must be at least 16 characters without spaces" })
    .optional()
    .describe(
      "Signing secret of the PagerDuty V3 webhook subscription posting to POST /api/alerts/pagerduty; unset turns PagerDuty intake off",
    ),
  OPSPILOT_SLACK_SIGNING_SECRET: z
    .string()
    .regex(/^\S{16,}$/, { error: "must be at least 16 characters without spaces" })
    .optional()
    .describe(
      "Signing secret of the Slack app whose Approve and Reject buttons post to POST /api/integrations/slack/interactions; unset turns Slack approvals off",
    ),
  OPSPILOT_ALERT_USER: z
    .string()
    .regex(/^[A-Za-z0-9._@-]+:[a-z_]+$/, { error: "must look like user:role" })
    .refine((value) => (KNOWN_ROLES as readonly string[]).includes(value.split(":")[1]!), {
      error: `the role must be one of ${KNOWN_ROLES.join(", ")}`,
    })
    .default("alertmanager:operator")
    .transform((value): RunUser => {
      const [id, role] = value.split(":") as [string, string];
      return Object.freeze({ id, role });
    })
    .describe("user:role that incident investigations run as and whose threads operators and admins share"),
  OPSPILOT_RATE_LIMIT_PER_MINUTE: integer(0, 100_000)
    .default(60)
    .describe(
      "Run starts (new threads, messages, resumes, recoveries) each API user, or each address without tokens, may make per minute; 0 disables",
    ),
};
