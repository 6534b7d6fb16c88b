import { z } from "zod";
import { KNOWN_ROLES } from "../contracts/user.js";
import { PROFILE_NAME, RunLimitsSchema } from "../contracts/limits.js";
import { ToolsetsSchema } from "./toolsets-schema.js";
import { SchedulesSchema } from "./schedules-schema.js";
import { DURATION_HINT, DURATION_PATTERN, parseDuration } from "../contracts/formats/duration.js";

/** Characters a tool-name pattern may hold: tool names plus the glob wildcards `*` and `?`. */
const TOOL_PATTERN = /^[A-Za-z0-9_.:*?-]+$/;

/** Characters of a tool name. */
const TOOL_NAME = /^[A-Za-z0-9_.:-]+$/;

/** A Slack user id (`U…`, or `W…` on Enterprise Grid). */
const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** An opspilot user id, as `OPSPILOT_API_TOKENS` spells them. */
const USER_ID = /^[A-Za-z0-9._@-]+$/;

/** Whether a server's tool annotations may lower a write's risk or allow a retry (design §12). */
const TrustAnnotationsSchema = z
  .boolean()
  .optional()
  .describe(
    "true lets this server's destructiveHint: false make a write low risk and its idempotentHint allow a retry; by default every tool that is not a read needs approval",
  );

/** An MCP server started as a child process and spoken to over stdio (the editors' format). */
export const StdioServerSchema = z
  .object({
    command: z.string().min(1).describe("Program to start, e.g. npx or a path"),
    args: z.array(z.string()).default([]).describe("Its arguments"),
    env: z.record(z.string(), z.string()).optional().describe("Extra environment variables for the server"),
    cwd: z.string().optional().describe("Working directory of the server"),
    trustAnnotations: TrustAnnotationsSchema,
  })
  .strict();

/** An MCP server reached over Streamable HTTP, falling back to SSE. */
export const HttpServerSchema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).describe("Endpoint of the server"),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe("Headers sent with every request, e.g. Authorization"),
    trustAnnotations: TrustAnnotationsSchema,
    pingIntervalMs: z
      .number()
      .int()
      .min(1_000)
      .max(3_600_000)
      .optional()
      .describe(
        "How often the server is sent MCP's ping, so a server that died is marked down without waiting for a call (default 15000)",
      ),
  })
  .strict();

/** One entry of `mcpServers`: stdio (`command`) or HTTP (`url`). */
export const McpServerSchema = z.union([StdioServerSchema, HttpServerSchema], {
  error: 'must have either "command" (stdio) or "url" (Streamable HTTP or SSE)',
});

/** A field the loop asks the user for when the model leaves it out. */
export const AskFieldSchema = z
  .object({
    description: z.string().min(1).describe("Shown above the form field"),
    enum: z.array(z.string()).min(1).optional().describe("Allowed values, drawn as a select"),
  })
  .strict();

/** A duration like `30m`, or `never` (which turns a server default off for the tools it matches). */
export const ExpiresAfterSchema = z
  .string()
  .regex(new RegExp(`^never$|${DURATION_PATTERN.source}`), { error: `${DURATION_HINT}, or "never"` })
  .refine((value) => value === "never" || parseDuration(value) !== undefined, { error: DURATION_HINT });

/**
 * How the tools' approvals behave; merged key by key across the entries that match a tool, so
 * keys added later (who must approve) combine with `expiresAfter` set by another entry.
 */
export const ApprovalsSchema = z
  .object({
    expiresAfter: ExpiresAfterSchema.optional().describe(
      'How long an approval may wait ("5s", "30m", "2h", "1d"); then the call is answered approval_expired and the run goes on. "never" turns OPSPILOT_APPROVAL_EXPIRES_AFTER off here',
    ),
    required: z
      .number()
      .int()
      .min(1)
      .max(5)
      .optional()
      .describe(
        "How many distinct people must approve a high-risk call before it runs (1 by default); any rejection rejects it",
      ),
    distinctFromRequester: z
      .boolean()
      .optional()
      .describe("true: the user whose message started the run may reject the call but not approve or edit it"),
  })
  .strict();

/** Policy overrides for the tools a name or glob matches; each field wins over the tool's own setting. */
export const ToolPolicySchema = z
  .object({
    enabled: z.boolean().optional().describe("false hides the tool from the model and refuses it"),
    readOnly: z.boolean().optional().describe("Reads run in parallel; writes one at a time"),
    risk: z.enum(["low", "high"]).optional().describe("High-risk tools wait for the user's approval"),
    roles: z
      .array(z.enum(KNOWN_ROLES, { error: `must be one of ${KNOWN_ROLES.join(", ")}` }))
      .optional()
      .describe("Roles allowed to call the tool; [] lets nobody call it"),
    askUser: z.record(z.string(), AskFieldSchema).optional().describe("Fields to ask the user for when missing"),
    timeoutMs: z.number().int().min(100).max(600_000).optional().describe("Per-attempt time limit"),
    idempotent: z.boolean().optional().describe("A write that may be retried once after a timeout"),
    egress: z
      .boolean()
      .optional()
      .describe(
        "Sends data outside (chat, e-mail, tickets, webhooks): after the thread read untrusted content, each call waits for a person",
      ),
    trusted: z
      .boolean()
      .optional()
      .describe("Its results cannot carry instructions: reading them does not taint the thread (default false)"),
    rateLimit: z
      .object({
        perMinute: z.number().int().min(1).max(100_000).optional().describe("Calls per minute, all users together"),
        perUserPerMinute: z.number().int().min(1).max(100_000).optional().describe("Calls per minute per user"),
      })
      .strict()
      .optional()
      .describe("Calls allowed before the call reaches the tool; beyond it the model gets rate_limited"),
    fallback: z
      .array(z.string().regex(TOOL_NAME, { error: "must be a tool name" }))
      .optional()
      .describe("Tools to suggest when this one fails (those the user may call and that are up)"),
    approvals: ApprovalsSchema.optional().describe(
      "How approvals of this tool's calls behave: who must give them and when they expire",
    ),
  })
  .strict();

/** `opspilot.config.json`: MCP servers, tool policies, a runbooks folder and the demo tools. */
export const ConfigFileSchema = z
  .object({
    $schema: z.string().optional().describe("Path or URL of opspilot.config.schema.json, for editors"),
    mcpServers: z
      .record(
        z.string().regex(/^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$/, {
          error: "server names use letters, digits, '-' and single '_' (tools are named <server>__<tool>)",
        }),
        McpServerSchema,
      )
      .default({})
      .describe("MCP servers whose tools opspilot may call, in the format editors use"),
    toolsets: ToolsetsSchema.optional().describe(
      "Built-in tools for the monitoring stack (Prometheus, Alertmanager), registered when their server is named",
    ),
    tools: z
      .record(
        z.string().regex(TOOL_PATTERN, { error: "must be a tool name or a glob using * and ?" }),
        ToolPolicySchema,
      )
      .default({})
      .describe('Policy overrides by exact tool name or glob (e.g. "k8s__*"); an exact name wins over a glob'),
    runbooks: z.string().min(1).optional().describe("Folder of Markdown runbooks indexed for search_docs"),
    demo: z.boolean().default(true).describe("Keep the built-in demo tools and dataset"),
    auth: z
      .object({
        oidc: z
          .object({
            roles: z
              .record(z.string().min(1), z.enum(KNOWN_ROLES, { error: `must be one of ${KNOWN_ROLES.join(", ")}` }))
              .refine((roles) => Object.keys(roles).length > 0, { error: "must map at least one group to a role" })
              .describe(
                'Group → role, for OPSPILOT_OIDC_ISSUER tokens (e.g. { "sre-oncall": "operator", "sre-leads": "admin" }); the first group listed that the token holds wins, none: refused',
              ),
            groupsClaim: z
              .string()
              .min(1)
              .default("groups")
              .describe("The access-token claim that lists the user's groups"),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional()
      .describe("Single sign-on: how an OpenID provider's groups become opspilot roles"),
    profiles: z
      .record(
        z.string().regex(PROFILE_NAME, { error: "must be a profile name (letters, digits, _ and -)" }),
        RunLimitsSchema,
      )
      .default({})
      .describe(
        'Named sets of run limits a run picks by name (e.g. "quick", "investigate", "change"); each must stay within the OPSPILOT_* ceilings',
      ),
    chat: z
      .object({
        slack: z
          .object({
            users: z
              .record(
                z.string().regex(SLACK_USER_ID, { error: "must be a Slack user id such as U0123ABCD" }),
                z.string().regex(USER_ID, { error: "must be an opspilot user id (letters, digits, . _ @ -)" }),
              )
              .default({})
              .describe(
                'Slack user id → opspilot user id (e.g. { "U0123ABCD": "olga" }); the user\'s role comes from OPSPILOT_API_TOKENS. Unlisted Slack users cannot answer pauses from Slack',
              ),
          })
          .strict()
          .optional()
          .describe("Approving pauses from Slack (OPSPILOT_SLACK_SIGNING_SECRET): who is who"),
      })
      .strict()
      .optional()
      .describe("Chat integrations"),
    schedules: SchedulesSchema.optional().describe(
      "Scheduled investigations: a question asked on a cron schedule, each due time once across every process",
    ),
  })
  .strict()
  .describe("opspilot.config.json: MCP servers, tool policies, a runbooks folder and the demo tools");

/** The validated config file. */
export type ConfigFile = z.infer<typeof ConfigFileSchema>;
/** One MCP server entry. */
export type McpServerConfig = z.infer<typeof McpServerSchema>;
/** A tool policy's `approvals`. */
export type ApprovalsPolicy = z.infer<typeof ApprovalsSchema>;
/** One tool policy override. */
export type ToolPolicy = z.infer<typeof ToolPolicySchema>;
