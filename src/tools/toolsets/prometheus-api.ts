import { ToolError } from "../../contracts/errors.js";
import { errorDetail, type ToolsetClient, type ToolsetRequest } from "./http-client.js";

/**
 * Reads one endpoint of Prometheus's HTTP API and returns its `data`. A PromQL or parameter
 * error (400 `bad_data`, 422 `execution`) is `invalid_args` with Prometheus's own message,
 * so the model can correct the query; what the client throws (unreachable, 5xx, 401/403) passes through.
 */
export async function prometheusData(
  client: ToolsetClient,
  request: Pick<ToolsetRequest, "path" | "query" | "signal">,
): Promise<unknown> {
  const { status, body } = await client.send(request);
  const envelope = body as { status?: unknown; data?: unknown; errorType?: unknown } | null;
  if (status === 200 && envelope?.status === "success") return envelope.data;
  const detail = errorDetail(body) ?? `HTTP ${status}`;
  if (status === 400 || status === 422) throw new ToolError("invalid_args", `Prometheus: ${detail}`);
  if (status === 404)
    throw new ToolError("not_found", `Prometheus has no ${request.path} (HTTP 404): check toolsets.prometheus.url.`);
  throw new ToolError("internal", `Prometheus answered ${request.path} unexpectedly (${detail}).`);
}
