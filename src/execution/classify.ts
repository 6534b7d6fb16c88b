import { ToolError } from "../contracts/errors.js";
import type { ErrorCode } from "../contracts/observation.js";

/** A failure turned into an error class and a message safe to show the model. */
export interface ClassifiedFailure {
  errorCode: ErrorCode;
  message: string;
}

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "ENOTFOUND",
  "UND_ERR_SOCKET",
]);

/**
 * Decides the error class of anything a tool threw (design §2.4). Only `ToolError`
 * messages, written by the tool's author for the model, pass through; any other error
 * becomes a generic sentence so internal messages and stack traces never leave the process.
 */
export function classifyFailure(tool: string, error: unknown): ClassifiedFailure {
  if (error instanceof ToolError) return { errorCode: error.errorCode, message: firstLine(error.message) };
  const status = httpStatus(error);
  if (status === 429) return { errorCode: "rate_limited", message: `${tool} was rate limited by its backend.` };
  if (status === 401 || status === 403)
    return { errorCode: "permission_denied", message: `${tool} was refused by its backend.` };
  if (status === 404) return { errorCode: "not_found", message: `${tool} found nothing at its backend.` };
  if (status !== undefined && status >= 500)
    return { errorCode: "transient", message: `${tool}'s backend failed temporarily.` };
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && NETWORK_CODES.has(code))
    return { errorCode: "transient", message: `${tool} could not reach its backend.` };
  return { errorCode: "internal", message: `${tool} failed with an internal error.` };
}

function httpStatus(error: unknown): number | undefined {
  const candidate = error as { status?: unknown; statusCode?: unknown } | null;
  const status = candidate?.status ?? candidate?.statusCode;
  return typeof status === "number" ? status : undefined;
}

function firstLine(message: string): string {
  return (message.split("\n")[0] ?? "").slice(0, 500);
}
