import { ToolError } from "../../../contracts/errors.js";
import type { LokiInstance } from "../../../config/log-toolsets-schema.js";
import { createToolsetClient, errorDetail, type ToolsetClient, type ToolsetRequest } from "../http-client.js";

/** A client for one Loki: its headers, and the tenant as `X-Scope-OrgID`. */
export function lokiClient(instance: LokiInstance): ToolsetClient {
  const headers = { ...instance.headers, ...(instance.tenant ? { "X-Scope-OrgID": instance.tenant } : {}) };
  return createToolsetClient("Loki", { url: instance.url, headers, timeoutMs: instance.timeoutMs });
}

/**
 * Reads one endpoint of Loki's HTTP API and returns its `data`. Loki answers a bad LogQL query or
 * parameter with 400 and its message as text (`parse error at line 1, col 5: …`): that is
 * `invalid_args` with Loki's words, so the model can fix the query. What the client throws
 * (unreachable, 5xx, 401/403, 429, time-out) passes through.
 */
export async function lokiData(
  client: ToolsetClient,
  request: Pick<ToolsetRequest, "path" | "query" | "signal">,
): Promise<unknown> {
  const { status, body } = await client.send(request);
  const envelope = body as { status?: unknown; data?: unknown } | null;
  if (status === 200 && envelope?.status === "success") return envelope.data;
  const detail = errorDetail(body) ?? `HTTP ${status}`;
  if (status === 400 || status === 422) throw new ToolError("invalid_args", `Loki: ${detail}`);
  if (status === 404)
    throw new ToolError("not_found", `Loki has no ${request.path} (HTTP 404): check toolsets.loki's url.`);
  throw new ToolError("internal", `Loki answered ${request.path} unexpectedly (${detail}).`);
}

/** Nanoseconds since the epoch, as Loki takes times, of milliseconds. */
export function nanoseconds(milliseconds: number): string {
  return (BigInt(Math.round(milliseconds)) * 1_000_000n).toString();
}
