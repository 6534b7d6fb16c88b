import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
  type ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import { isGraphBubbleUp } from "@langchain/langgraph";
import { z } from "zod";
import { formatZodIssues } from "../contracts/formats/zod-issues.js";
import type { RunUser } from "../contracts/user.js";
import { classifyFailure } from "../execution/classify.js";
import { missingAskFields } from "../graph/calls/validation.js";
import { ERROR_CODE_META, NEEDS_USER_META } from "../tools/mcp/result.js";
import { ASK_USER_META, IDEMPOTENCY_META, ROLES_META } from "../tools/mcp/tool-definition.js";
import { effectiveRoles } from "../tools/registry.js";
import { isUserInputRequest, type ToolDefinition, type UserInputRequest } from "../tools/types.js";

/** Who the tools act for when an MCP client calls them: the local user, as with the CLI. */
const MCP_USER: RunUser = { id: "mcp-client", role: "operator" };

/**
 * An MCP server offering opspilot tool definitions. Each tool's annotations follow its
 * policy (read-only, destructive when high risk, idempotent when it says so) and its roles
 * and ask-the-user fields ride in `_meta`, so opspilot loading this server back gets the same policy. A tool that
 * needs the user — a missing ask-the-user field, or `requestUserInput` mid-run — answers
 * with text for any client and the request in `_meta`, which opspilot turns back into a pause.
 */
export function createToolServer(
  tools: readonly ToolDefinition[],
  info = { name: "opspilot", version: "0.1.0" },
): Server {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // The low-level server: these tools bring their own schemas, validation and policy.
  const server = new Server(info, { capabilities: { tools: { listChanged: false } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(toMcpTool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) return failure("not_found", `There is no tool named "${request.params.name}".`);
    const args = request.params.arguments ?? {};
    const missing = missingAskFields(tool, args);
    if (missing.length > 0)
      return needsUser({ kind: "needs_user", reason: "Some fields must come from the user.", missing });
    const parsed = tool.schema.safeParse(args);
    if (!parsed.success)
      return failure("invalid_args", `Invalid arguments for ${tool.name}: ${formatZodIssues(parsed.error)}.`);
    const key = request.params._meta?.[IDEMPOTENCY_META];
    try {
      const value = await tool.run(parsed.data, {
        signal: AbortSignal.any([extra.signal, AbortSignal.timeout(tool.timeoutMs)]),
        idempotencyKey: typeof key === "string" && key.length > 0 ? key : `mcp:${randomUUID()}`,
        threadId: "mcp",
        callId: String(extra.requestId),
        user: MCP_USER,
      });
      return isUserInputRequest(value) ? needsUser(value) : success(value);
    } catch (error) {
      if (isGraphBubbleUp(error)) throw error;
      const { errorCode, message } = classifyFailure(tool.name, error);
      return failure(errorCode, message);
    }
  });
  return server;
}

function toMcpTool(tool: ToolDefinition): Tool {
  const roles = effectiveRoles(tool);
  const { $schema: _dialect, ...inputSchema } =
    tool.parameters ??
    (z.toJSONSchema(tool.schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>);
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: inputSchema as Tool["inputSchema"],
    annotations: annotationsOf(tool),
    _meta: {
      ...(roles ? { [ROLES_META]: [...roles] } : {}),
      ...(tool.askUser ? { [ASK_USER_META]: tool.askUser } : {}),
    },
  };
}

/** The policy as MCP hints: the inverse of how opspilot reads them (src/tools/mcp/tool-definition.ts). */
function annotationsOf(tool: ToolDefinition): ToolAnnotations {
  const openWorldHint = tool.egress === true;
  if (tool.readOnly) return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint };
  return {
    readOnlyHint: false,
    destructiveHint: tool.risk === "high",
    idempotentHint: tool.idempotent === true,
    openWorldHint,
  };
}

function success(value: unknown): CallToolResult {
  const text = JSON.stringify(value ?? null);
  const structured = typeof value === "object" && value !== null && !Array.isArray(value);
  return {
    content: [{ type: "text", text }],
    ...(structured ? { structuredContent: value as Record<string, unknown> } : {}),
  };
}

function failure(errorCode: string, message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true, _meta: { [ERROR_CODE_META]: errorCode } };
}

function needsUser(request: UserInputRequest): CallToolResult {
  const fields = request.missing
    .map((field) => `${field.name} (${field.description}${field.enum ? `: ${field.enum.join(" | ")}` : ""})`)
    .join("; ");
  return {
    content: [
      { type: "text", text: `${request.reason} Ask the user for: ${fields}. Then call the tool again with them.` },
    ],
    _meta: { [NEEDS_USER_META]: { reason: request.reason, missing: request.missing } },
  };
}
