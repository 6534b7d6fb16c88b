import { z } from "zod";

/**
 * The fields every toolset server has: its base URL, headers and time limit. The examples name
 * the server, so each toolset's JSON Schema reads as its own.
 */
export function endpointFields(example: { url: string; token: string }) {
  return {
    url: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
      .describe(`Base URL of the server, e.g. ${example.url} (a path prefix is kept)`),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe(`Headers sent with every request, e.g. { "Authorization": "Bearer \${${example.token}}" }`),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(120_000)
      .optional()
      .describe("How long one request may take before the call fails as a timeout (default 10000)"),
  };
}

/** One monitoring server a built-in toolset talks to over HTTP. */
export const ToolsetEndpointSchema = z
  .object(endpointFields({ url: "http://prometheus:9090", token: "PROM_TOKEN" }))
  .strict();
