import { Client, errors } from "@opensearch-project/opensearch";
import { ToolError } from "../../../contracts/errors.js";
import type { ElasticsearchInstance } from "../../../config/log-toolsets-schema.js";
import { DEFAULT_TOOLSET_TIMEOUT_MS } from "../http-client.js";

/** One request through the official client: a path and a body, as the search API takes them. */
export interface SearchRequest {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  signal: AbortSignal;
}

/** The OpenSearch client over one Elasticsearch or OpenSearch cluster, its failures classified. */
export interface SearchClient {
  readonly timeoutMs: number;
  /** Sends one request; throws `ToolError` with opspilot's codes for every failure. */
  request(request: SearchRequest): Promise<unknown>;
}

/**
 * A client for one cluster. It is `@opensearch-project/opensearch`, which runs on Node 20 and does
 * no product check, so it reads Elasticsearch's answers as OpenSearch's. It never retries on its
 * own (the executor decides), and every failure becomes the code the Prometheus toolset's HTTP
 * client gives the same status: 401/403 `permission_denied`, 429 `rate_limited`, 5xx and
 * unreachable `transient`, past the time limit `timeout`, 400 `invalid_args` with the server's reason.
 */
export function searchClient(instance: ElasticsearchInstance): SearchClient {
  const timeoutMs = instance.timeoutMs ?? DEFAULT_TOOLSET_TIMEOUT_MS;
  const client = new Client({
    node: instance.url,
    headers: instance.headers ?? {},
    requestTimeout: timeoutMs,
    maxRetries: 0,
  });
  return {
    timeoutMs,
    async request(request) {
      const pending = client.transport.request({
        method: request.method,
        path: request.path,
        body: request.body as object,
      });
      const abort = () => pending.abort();
      request.signal.addEventListener("abort", abort, { once: true });
      try {
        return (await pending).body;
      } catch (error) {
        throw classify(error, timeoutMs, request.signal);
      } finally {
        request.signal.removeEventListener("abort", abort);
      }
    },
  };
}

const LABEL = "Elasticsearch";

function classify(error: unknown, timeoutMs: number, signal: AbortSignal): ToolError {
  if (signal.aborted || error instanceof errors.RequestAbortedError)
    return new ToolError("cancelled", `The request to ${LABEL} was cancelled.`);
  if (error instanceof errors.TimeoutError)
    return new ToolError("timeout", `${LABEL} did not answer within ${timeoutMs} ms.`);
  if (error instanceof errors.ResponseError) {
    const status = error.statusCode ?? 0;
    const reason = reasonOf(error.body);
    if (status === 401 || status === 403)
      return new ToolError(
        "permission_denied",
        `${LABEL} refused the request (HTTP ${status}): check the headers of toolsets.elasticsearch in opspilot.config.json.`,
      );
    if (status === 429) return new ToolError("rate_limited", `${LABEL} is rate limiting requests (HTTP 429).`);
    if (status >= 500)
      return new ToolError(
        "transient",
        `${LABEL} failed temporarily (HTTP ${status}${reason ? `: ${reason}` : ""}); try again shortly.`,
      );
    if (status === 404) return new ToolError("not_found", `${LABEL}: ${reason ?? "not found (HTTP 404)"}`);
    return new ToolError("invalid_args", `${LABEL}: ${reason ?? `HTTP ${status}`}`);
  }
  if (error instanceof errors.ConnectionError || error instanceof errors.NoLivingConnectionsError) {
    const code = /ECONNREFUSED|ENOTFOUND|ECONNRESET|EHOSTUNREACH/.exec(String((error as Error).message))?.[0];
    return new ToolError(
      "transient",
      `${LABEL} could not be reached${code ? ` (${code})` : ""}; it may be down or restarting.`,
    );
  }
  return new ToolError("internal", `${LABEL} answered unexpectedly.`);
}

/** The most specific reason in an error body: the root cause's, else the top error's, with what caused it. */
function reasonOf(body: unknown): string | undefined {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === "string") return error.slice(0, 400);
  if (!error || typeof error !== "object") return undefined;
  const top = error as {
    type?: string;
    reason?: string;
    root_cause?: Array<{ type?: string; reason?: string }>;
    caused_by?: { reason?: string };
  };
  const root = top.root_cause?.[0];
  const reason = root?.reason ?? top.reason;
  const cause = top.caused_by?.reason;
  const text = [root?.type ?? top.type, reason, cause && cause !== reason ? cause : undefined]
    .filter(Boolean)
    .join(": ");
  return text.slice(0, 400) || undefined;
}
