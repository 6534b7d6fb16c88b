import type { Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { ToolError } from "../../contracts/errors.js";
import type { AskField, ToolContext, ToolDefinition } from "../types.js";
import { askableFields, convertInputSchema, type JsonSchema } from "./json-schema.js";

/** `_meta` key of a tool listing with the roles allowed to call it (opspilot's own server sets it). */
export const ROLES_META = "opspilot/roles";
/** `_meta` key of a tool listing with the fields to ask the user for, in the words meant for the user. */
export const ASK_USER_META = "opspilot/askUser";
/** `_meta` key of a call request with its idempotency key, so a server can apply a write once. */
export const IDEMPOTENCY_META = "opspilot/idempotencyKey";

/** How a tool runs, as its annotations say (design §3; config overrides are applied later, by the caller). */
export interface AnnotationPolicy {
  readOnly: boolean;
  risk: "low" | "high";
  idempotent: boolean;
  /** Whether it reaches outside (MCP's `openWorldHint`, true unless a trusted server says false). */
  egress: boolean;
}

/** The policy source of a trusted server's tools: their annotations decided. */
export const TRUSTED_ANNOTATIONS = "annotations";
/** The policy source of an untrusted server's tools: only `readOnlyHint` counted. */
export const UNTRUSTED_DEFAULT = "untrusted server default";

/**
 * The MCP hints read as policy. A read only when `readOnlyHint` is true; every other tool is
 * a high-risk write that is never retried, since MCP calls annotations hints a client must
 * not trust from a server it does not trust. Only for a `trusted` server (`trustAnnotations`)
 * does `destructiveHint: false` make a write low risk and `idempotentHint` let it be retried
 * once. No annotations at all is the most careful reading: a high-risk write. Every tool is
 * egress (MCP's `openWorldHint` defaults to true) unless a trusted server says
 * `openWorldHint: false`: an untrusted server's false does not lower it.
 */
export function policyOf(annotations: ToolAnnotations | undefined, trusted: boolean): AnnotationPolicy {
  const egress = !trusted || annotations?.openWorldHint !== false;
  if (annotations?.readOnlyHint === true) return { readOnly: true, risk: "low", idempotent: false, egress };
  if (!trusted) return { readOnly: false, risk: "high", idempotent: false, egress };
  return {
    readOnly: false,
    risk: annotations?.destructiveHint === false ? "low" : "high",
    idempotent: annotations?.idempotentHint === true,
    egress,
  };
}

/**
 * The name the model calls: `<server>__<tool>`, with characters a function name may not hold
 * (OpenAI allows letters, digits, `_` and `-`, at most 64) replaced by `_`.
 */
export function qualifiedName(server: string, tool: string): string {
  return `${server}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, 64);
}

/** What a definition needs besides the server's listing. */
export interface McpToolOptions {
  server: string;
  tool: Tool;
  /** The server's `trustAnnotations`: whether its hints may lower a write's risk or allow a retry. */
  trustAnnotations: boolean;
  /** Per-attempt time limit until a policy sets another. */
  timeoutMs: number;
  /** Sends the call to the server and turns the answer into the tool's value. */
  call(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
}

/**
 * One MCP tool as a normal tool definition: the server's JSON Schema validated before the
 * call (correctable `invalid_args`), required enum fields asked of the user (in the words
 * the listing's `_meta` gives, when it does), the policy from its annotations as far as the
 * server is trusted, and the roles its listing names (a server can only narrow who calls it).
 */
export function mcpToolDefinition(options: McpToolOptions): ToolDefinition {
  const { server, tool } = options;
  const name = qualifiedName(server, tool.name);
  const converted = convertInputSchema(tool.inputSchema as JsonSchema);
  const askUser = { ...askableFields(converted.parameters), ...declaredAskUser(tool, converted.parameters) };
  const roles = rolesOf(tool);
  const origin = options.trustAnnotations ? TRUSTED_ANNOTATIONS : UNTRUSTED_DEFAULT;
  return {
    name,
    description: descriptionOf(server, tool),
    schema: converted.schema,
    parameters: converted.parameters,
    ...policyOf(tool.annotations, options.trustAnnotations),
    policySource: { readOnly: origin, risk: origin, idempotent: origin, egress: origin },
    ...(Object.keys(askUser).length > 0 ? { askUser } : {}),
    ...(roles ? { roles } : {}),
    timeoutMs: options.timeoutMs,
    source: { server },
    async run(args, context) {
      const problem = converted.check?.(args);
      if (problem !== undefined) throw new ToolError("invalid_args", `Invalid arguments for ${name}: ${problem}.`);
      return options.call(args, context);
    },
  };
}

function descriptionOf(server: string, tool: Tool): string {
  const text = tool.description ?? tool.annotations?.title ?? tool.title;
  return text && text.trim().length > 0 ? text : `${tool.name} from the MCP server "${server}".`;
}

function rolesOf(tool: Tool): string[] | undefined {
  const roles = tool._meta?.[ROLES_META];
  return Array.isArray(roles) && roles.length > 0 && roles.every((role) => typeof role === "string")
    ? (roles as string[])
    : undefined;
}

function declaredAskUser(tool: Tool, parameters: JsonSchema): Record<string, AskField> {
  const declared = tool._meta?.[ASK_USER_META];
  const properties = parameters.properties;
  if (typeof declared !== "object" || declared === null || typeof properties !== "object" || properties === null)
    return {};
  return Object.fromEntries(
    Object.entries(declared as Record<string, { description?: unknown; enum?: unknown }>).flatMap(([name, field]) =>
      name in properties && typeof field?.description === "string"
        ? [
            [
              name,
              {
                description: field.description,
                ...(Array.isArray(field.enum) ? { enum: field.enum.map(String) } : {}),
              },
            ],
          ]
        : [],
    ),
  );
}
