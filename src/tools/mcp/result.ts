import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ToolError } from "../../contracts/errors.js";
import { ErrorCodeSchema, type ErrorCode } from "../../contracts/observation.js";
import { requestUserInput, type UserInputRequest } from "../types.js";

/** `_meta` key under which opspilot's own MCP server says a tool needs the user (see src/mcp-server). */
export const NEEDS_USER_META = "opspilot/needsUser";
/** `_meta` key under which opspilot's own MCP server gives a failure's exact error class. */
export const ERROR_CODE_META = "opspilot/errorCode";

type ContentItem = CallToolResult["content"][number];

/** A content item the model is told about but not shown: binary data never goes into an observation. */
export type ContentSummary =
  | { type: "image" | "audio"; mimeType: string; bytes: number }
  | { type: "resource"; uri: string; mimeType?: string; bytes?: number; chars?: number }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string };

/**
 * What a tool result becomes: the structured content when the server gave one (its text copy
 * is redundant), else the text, with images and resources summarized. `isError` results
 * throw a `ToolError` carrying the server's text, classified from that text (or from the
 * exact class opspilot's own server adds), as a local tool would.
 */
export function resultValue(tool: string, result: CallToolResult): unknown {
  const needsUser = needsUserOf(result);
  if (needsUser) return needsUser;
  if (result.isError) {
    const text = texts(result.content).join("\n").trim();
    const declared = ErrorCodeSchema.safeParse(result._meta?.[ERROR_CODE_META]);
    throw new ToolError(
      declared.success ? declared.data : errorCodeOf(text),
      text.length > 0 ? text : `${tool} reported an error without a message.`,
    );
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  const items = (result.content ?? []).map(itemValue);
  if (items.length === 1 && typeof items[0] === "string") return items[0];
  return { content: items };
}

/** The error class a server's error text names; anything unrecognized is `internal`. */
export function errorCodeOf(text: string): ErrorCode {
  if (/\b(not found|no such file|ENOENT|does not exist|unknown (file|path|resource))\b/i.test(text)) return "not_found";
  if (/\b(permission|access denied|EACCES|EPERM|forbidden|unauthori[sz]ed|not allowed)\b/i.test(text))
    return "permission_denied";
  if (/\b(rate limit(ed)?|too many requests)\b/i.test(text)) return "rate_limited";
  if (/\b(invalid (arguments|params|input)|input validation error)\b/i.test(text)) return "invalid_args";
  return "internal";
}

function needsUserOf(result: CallToolResult): UserInputRequest | undefined {
  const value = result._meta?.[NEEDS_USER_META] as { reason?: unknown; missing?: unknown } | undefined;
  if (!value || typeof value.reason !== "string" || !Array.isArray(value.missing)) return undefined;
  const missing = value.missing.flatMap((field: { name?: unknown; description?: unknown; enum?: unknown }) =>
    typeof field?.name === "string" && typeof field.description === "string"
      ? [
          {
            name: field.name,
            description: field.description,
            ...(Array.isArray(field.enum) ? { enum: field.enum.map(String) } : {}),
          },
        ]
      : [],
  );
  return missing.length > 0 ? requestUserInput(value.reason, missing) : undefined;
}

function texts(content: CallToolResult["content"] | undefined): string[] {
  return (content ?? []).flatMap((item) => (item.type === "text" ? [item.text] : []));
}

function itemValue(item: ContentItem): string | ContentSummary {
  switch (item.type) {
    case "text":
      return item.text;
    case "image":
    case "audio":
      return { type: item.type, mimeType: item.mimeType, bytes: base64Bytes(item.data) };
    case "resource": {
      const { uri, mimeType } = item.resource;
      const size =
        "blob" in item.resource
          ? { bytes: base64Bytes(item.resource.blob) }
          : { chars: (item.resource as { text: string }).text.length };
      return { type: "resource", uri, ...(mimeType ? { mimeType } : {}), ...size };
    }
    case "resource_link":
      return {
        type: "resource_link",
        uri: item.uri,
        name: item.name,
        ...(item.mimeType ? { mimeType: item.mimeType } : {}),
      };
    default: {
      const _exhaustive: never = item;
      return _exhaustive;
    }
  }
}

/** Decoded size of base64 data, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.replace(/\s/g, "").length * 3) / 4) - padding);
}
