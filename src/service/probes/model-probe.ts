import { parseModelSpec, type ModelSettings, type ModelSpec } from "../../models/providers/provider.js";
import type { DependencyProbe, ProbeResult } from "./probe.js";
import { transportError } from "./probe.js";
import { httpVerdict, transportVerdict, type ModelSettingNames } from "./model-verdict.js";

/** The tool the probe offers; a model that can drive opspilot calls it. */
export const PING_TOOL = "opspilot_ping";
const INSTRUCTION = `This is a health check. Call the tool ${PING_TOOL} now, with no arguments, and write nothing else.`;

/** Where a provider's probe request goes, what it sends, and how its answer shows a tool call. */
interface ProbeRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  calledTool(answer: unknown): boolean;
  names: ModelSettingNames;
}

/**
 * The model's probe: one minimal real request that offers one tool and asks for a call of it,
 * straight to the endpoint (no retries), so a dead endpoint, a refused key, an unknown model
 * and a model that cannot call tools each get their own line, with the endpoint's host, the
 * HTTP status or error class and the latency. The demo model needs nothing and always passes.
 * The settings must already have passed `parseModelSpec`.
 */
export function modelProbe(settings: ModelSettings): DependencyProbe {
  const spec = parseModelSpec(settings);
  const timeoutMs = Math.min(settings.OPSPILOT_MODEL_TIMEOUT_MS, 30_000);
  return {
    dependency: "model",
    timeoutMs: timeoutMs + 1_000,
    async check(signal) {
      if (spec.provider === "demo") return { dependency: "model", ok: true, detail: "demo (offline demo model)" };
      return probeEndpoint(spec, requestOf(spec), AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]), timeoutMs);
    },
  };
}

async function probeEndpoint(
  spec: Extract<ModelSpec, { provider: "openai" | "anthropic" }>,
  request: ProbeRequest,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<ProbeResult> {
  const where = `${spec.provider}:${spec.model} at ${new URL(spec.baseURL).host}`;
  const started = performance.now();
  const took = () => `${Math.round(performance.now() - started)} ms`;
  const result = (ok: boolean, detail: string): ProbeResult => ({
    dependency: "model",
    ok,
    detail: `${where}: ${detail}`,
  });
  let response: Response;
  let answer: unknown;
  try {
    response = await fetch(request.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...request.headers },
      body: JSON.stringify(request.body),
      signal,
    });
    const text = await response.text();
    answer = parse(text);
  } catch (error) {
    const errorClass = transportError(error, signal);
    return result(false, `${transportVerdict(errorClass, timeoutMs, request.names)} (${errorClass}, ${took()})`);
  }
  if (!response.ok)
    return result(false, `${httpVerdict(response.status, answer, request.names)} (HTTP ${response.status}, ${took()})`);
  if (answer === undefined)
    return result(false, `the answer is not JSON (HTTP ${response.status}, ${took()}): check ${request.names.baseUrl}`);
  if (!request.calledTool(answer))
    return result(
      false,
      `the model answered without calling the tool (HTTP ${response.status}, ${took()}): opspilot needs a model that calls tools`,
    );
  return result(true, `called the tool (HTTP ${response.status}, ${took()})`);
}

function requestOf(spec: Extract<ModelSpec, { provider: "openai" | "anthropic" }>): ProbeRequest {
  const key = spec.apiKey ?? "not-needed";
  if (spec.provider === "anthropic")
    return {
      url: `${spec.baseURL}/v1/messages`,
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01" },
      body: {
        model: spec.model,
        max_tokens: 64,
        tools: [{ name: PING_TOOL, description: "Tells opspilot the model can call tools.", input_schema: EMPTY }],
        messages: [{ role: "user", content: INSTRUCTION }],
      },
      calledTool: (answer) =>
        listOf((answer as { content?: unknown }).content).some(
          (block) => (block as { type?: unknown }).type === "tool_use",
        ),
      names: { key: "ANTHROPIC_API_KEY", baseUrl: "ANTHROPIC_BASE_URL" },
    };
  return {
    url: `${spec.baseURL}/chat/completions`,
    headers: { authorization: `Bearer ${key}` },
    body: {
      model: spec.model,
      messages: [{ role: "user", content: INSTRUCTION }],
      tools: [
        {
          type: "function",
          function: { name: PING_TOOL, description: "Tells opspilot the model can call tools.", parameters: EMPTY },
        },
      ],
    },
    calledTool: (answer) => {
      const [choice] = listOf((answer as { choices?: unknown }).choices) as Array<{
        message?: { tool_calls?: unknown };
      }>;
      return listOf(choice?.message?.tool_calls).length > 0;
    },
    names: { key: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL" },
  };
}

const EMPTY = { type: "object", properties: {} };

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
