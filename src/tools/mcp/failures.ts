import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode as RpcCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ToolError } from "../../contracts/errors.js";
import { errorCodeOf } from "./result.js";

/** A failed call, as the model sees it, and whether the connection it ran on is still usable. */
export interface CallFailure {
  error: ToolError;
  /** The transport broke (not an answer from the server): the client is dropped and reconnects. */
  broken: boolean;
}

/** Network errors that mean the request never reached the server. */
const NOT_DELIVERED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/** What failed, on which kind of tool. */
export interface FailedCall {
  server: string;
  tool: string;
  /** A write: cut off midway, it may have taken effect. */
  write: boolean;
  error: unknown;
}

/**
 * Classifies what a call to an MCP server threw. An MCP error is the server's own answer;
 * anything else (a closed pipe, a reset socket, an HTTP failure) means the connection is
 * gone, which is `transient` — the executor retries a read once, on a fresh connection —
 * except for a write the server may already have received: its outcome is unknown.
 */
export function callFailure(failed: FailedCall): CallFailure {
  const { server, tool, error } = failed;
  const lost = (): CallFailure => ({
    error: failed.write
      ? new ToolError(
          "outcome_unknown",
          `The connection to MCP server "${server}" broke during ${tool}, so it is not known whether it took effect. Check the real state before trying again.`,
        )
      : new ToolError("transient", `MCP server "${server}" closed the connection during ${tool}.`),
    broken: true,
  });
  if (error instanceof McpError && error.code === RpcCode.ConnectionClosed) return lost();
  if (error instanceof McpError) return rpcFailure(tool, error);
  if (error instanceof StreamableHTTPError && error.code !== undefined) return httpFailure(server, tool, error.code);
  const code = networkCode(error);
  if (code !== undefined && NOT_DELIVERED.has(code))
    return {
      error: new ToolError("transient", `MCP server "${server}" could not be reached for ${tool}.`),
      broken: true,
    };
  return lost();
}

/** One short line on why a server could not be started or reached, safe for `/healthz` (no paths, no output). */
export function startFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return "command not found";
  if (code === "EACCES") return "command not executable";
  if (error instanceof McpError && error.code === RpcCode.RequestTimeout) return "did not answer the handshake in time";
  if (error instanceof McpError && error.code === RpcCode.ConnectionClosed) return "exited during the handshake";
  if (error instanceof StreamableHTTPError || (error as { name?: unknown } | null)?.name === "SseError")
    return `HTTP ${String((error as { code?: unknown }).code ?? "error")} from the server`;
  const network = networkCode(error);
  return network !== undefined ? `unreachable (${network})` : "failed to start";
}

/** One short line on why a ping failed, safe for `/healthz` like `startFailure`'s. */
export function pingFailure(error: unknown): string {
  if (error instanceof McpError && error.code === RpcCode.RequestTimeout) return "did not answer a ping in time";
  if (error instanceof McpError && error.code === RpcCode.ConnectionClosed) return "connection lost";
  if (error instanceof StreamableHTTPError && error.code !== undefined) return `ping failed: HTTP ${error.code}`;
  const network = networkCode(error);
  return network !== undefined ? `ping failed: unreachable (${network})` : "ping failed";
}

/** The system error code of a failed connection, where fetch keeps it (`cause`) or not. */
function networkCode(error: unknown): string | undefined {
  const candidate = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = candidate?.cause?.code ?? candidate?.code;
  return typeof code === "string" ? code : undefined;
}

function rpcFailure(tool: string, error: McpError): CallFailure {
  const text = error.message.replace(/^MCP error -?\d+:\s*/, "");
  switch (error.code) {
    case RpcCode.RequestTimeout:
      return { error: new ToolError("timeout", `${tool} did not answer in time.`), broken: false };
    case RpcCode.InvalidParams:
      // The SDK raises the same code when a result breaks the tool's declared output schema: the server's fault.
      if (/output schema/i.test(text))
        return { error: new ToolError("internal", `${tool} returned a result its own schema refuses.`), broken: false };
      return { error: new ToolError("invalid_args", `Invalid arguments for ${tool}: ${text}`), broken: false };
    default:
      return { error: new ToolError(errorCodeOf(text), `${tool} failed at its server: ${text}`), broken: false };
  }
}

function httpFailure(server: string, tool: string, status: number): CallFailure {
  if (status === 401 || status === 403)
    return { error: new ToolError("permission_denied", `${tool} was refused by its server.`), broken: false };
  if (status === 429)
    return { error: new ToolError("rate_limited", `${tool} was rate limited by its server.`), broken: false };
  // A 404 is the server forgetting our session (it restarted): a new session is the cure.
  return {
    error: new ToolError(
      "transient",
      `MCP server "${server}" failed for ${tool} (HTTP ${status}); it is reconnecting.`,
    ),
    broken: true,
  };
}
