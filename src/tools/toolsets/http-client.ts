import { ToolError } from "../../contracts/errors.js";
import type { ToolsetEndpoint } from "../../config/toolsets-schema.js";

/** Per-request time limit when the config sets none. */
export const DEFAULT_TOOLSET_TIMEOUT_MS = 10_000;

/** One request to a toolset server. */
export interface ToolsetRequest {
  /** HTTP method (GET by default). */
  method?: "GET" | "POST" | "DELETE";
  /** Path below the configured URL, e.g. `/api/v1/query`. */
  path: string;
  /** Query parameters; an array repeats the key (`match[]`). */
  query?: Record<string, string | readonly string[] | undefined>;
  /** Sent as JSON. */
  body?: unknown;
  /** The tool call's signal: a cancel or the executor's time limit stops the request. */
  signal: AbortSignal;
}

/** An answer of a toolset server that is not a failure of the transport: its status and its parsed body. */
export interface ToolsetResponse {
  /** HTTP status (below 500, not 401, 403 or 429: those are thrown as classified failures). */
  status: number;
  /** The body parsed as JSON, or its text when it is not JSON. */
  body: unknown;
}

/** A small HTTP client shared by the Prometheus and Alertmanager tools. */
export interface ToolsetClient {
  /** The server's name as the model reads it ("Prometheus", "Alertmanager"). */
  readonly label: string;
  /** The request's time limit, in milliseconds. */
  readonly timeoutMs: number;
  /**
   * Sends one request with the configured headers. An unreachable server, a 5xx or a time-out
   * throws `ToolError` (`transient`, `timeout`); 401/403 throw `permission_denied`, 429
   * `rate_limited`; any other answer is returned for the tool to read.
   */
  send(request: ToolsetRequest): Promise<ToolsetResponse>;
}

/** A client for one configured server; `label` names it in the messages the model reads. */
export function createToolsetClient(label: string, endpoint: ToolsetEndpoint): ToolsetClient {
  const timeoutMs = endpoint.timeoutMs ?? DEFAULT_TOOLSET_TIMEOUT_MS;
  const base = endpoint.url.replace(/\/+$/, "");
  return {
    label,
    timeoutMs,
    async send(request) {
      const url = new URL(`${base}${request.path}`);
      for (const [key, value] of Object.entries(request.query ?? {})) {
        for (const item of typeof value === "string" ? [value] : (value ?? [])) url.searchParams.append(key, item);
      }
      const headers = new Headers(endpoint.headers);
      headers.set("accept", "application/json");
      if (request.body !== undefined) headers.set("content-type", "application/json");
      const timeout = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await fetch(url, {
          method: request.method ?? "GET",
          headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          signal: AbortSignal.any([request.signal, timeout]),
        });
      } catch (error) {
        throw transportFailure(label, timeoutMs, request.signal, timeout, error);
      }
      const body = await readBody(response).catch((error: unknown) => {
        throw transportFailure(label, timeoutMs, request.signal, timeout, error);
      });
      if (response.status === 401 || response.status === 403) {
        throw new ToolError(
          "permission_denied",
          `${label} refused the request (HTTP ${response.status}): check the headers of toolsets.${label.toLowerCase()} in opspilot.config.json.`,
        );
      }
      if (response.status === 429)
        throw new ToolError("rate_limited", `${label} is rate limiting requests (HTTP 429).`);
      if (response.status >= 500) {
        throw new ToolError(
          "transient",
          `${label} failed temporarily (HTTP ${response.status}${detailOf(body)}); try again shortly.`,
        );
      }
      return { status: response.status, body };
    },
  };
}

/** The message a server put in an error body: Prometheus's `error`, Alertmanager's JSON string or `message`. */
export function errorDetail(body: unknown): string | undefined {
  if (typeof body === "string") return body.trim().slice(0, 400) || undefined;
  if (body !== null && typeof body === "object") {
    const record = body as { error?: unknown; message?: unknown };
    const text = typeof record.error === "string" ? record.error : record.message;
    if (typeof text === "string") return text.slice(0, 400);
  }
  return undefined;
}

function detailOf(body: unknown): string {
  const detail = errorDetail(body);
  return detail ? `: ${detail}` : "";
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A request that got no answer: cancelled by the run, out of time, or the server not reachable. */
function transportFailure(
  label: string,
  timeoutMs: number,
  callSignal: AbortSignal,
  timeout: AbortSignal,
  error: unknown,
): ToolError {
  if (callSignal.aborted) return new ToolError("cancelled", `The request to ${label} was cancelled.`);
  if (timeout.aborted) return new ToolError("timeout", `${label} did not answer within ${timeoutMs} ms.`);
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  const reason = typeof cause === "string" ? ` (${cause})` : "";
  return new ToolError("transient", `${label} could not be reached${reason}; it may be down or restarting.`);
}
