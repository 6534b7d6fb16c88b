import { diag, DiagLogLevel } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from "@opentelemetry/sdk-trace-node";
import type { Env } from "../config/env.js";
import { ConfigError } from "../contracts/errors.js";
import type { Logger } from "../service/observability/logger.js";
import { settleWithin } from "../service/runtime/settle.js";
import { createRunTracing, type RunTracing, type TracedModel } from "../service/observability/run-tracing.js";

/** The variables tracing is configured by: OpenTelemetry's standard ones, plus `OPSPILOT_OTEL_CAPTURE_CONTENT`. */
export type TracingEnv = Readonly<Record<string, string | undefined>>;

/** Tracing as the app runs it. */
export interface AppTracing extends RunTracing {
  /** Sends the spans still buffered (within `OTEL_BSP_EXPORT_TIMEOUT`-like bounds) and stops. */
  shutdown(): Promise<void>;
}

/** How long a closing process waits for its last spans to leave. */
const SHUTDOWN_GRACE_MS = 3_000;

/**
 * OpenTelemetry tracing from the standard variables, or undefined when none asks for it: on
 * once `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set, unless
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. Spans leave in batches in the
 * background (OTLP over HTTP, `http/protobuf` by default or `http/json`), so an exporter that
 * is down or hangs costs a log line, never a run's time. A bad value stops start-up with the
 * variable named.
 */
export function tracingFromEnv(
  env: TracingEnv,
  options: { model: TracedModel; logger: Logger; serverOf?: (tool: string) => string | undefined },
): AppTracing | undefined {
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (env.OTEL_SDK_DISABLED === "true" || env.OTEL_TRACES_EXPORTER === "none") return undefined;
  if (!tracesEndpoint && !endpoint) return undefined;
  const url = tracesEndpoint || `${endpoint!.replace(/\/+$/, "")}/v1/traces`;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new ConfigError(
      `OTEL_EXPORTER_OTLP_${tracesEndpoint ? "TRACES_" : ""}ENDPOINT must be an http(s) URL; got ${JSON.stringify(url)}.`,
    );
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf";
  if (protocol !== "http/protobuf" && protocol !== "http/json")
    throw new ConfigError(
      `OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (gRPC is not supported); got ${JSON.stringify(protocol)}.`,
    );
  const headers = otlpHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS);
  const Exporter = protocol === "http/json" ? JsonTraceExporter : ProtoTraceExporter;
  const exporter = new Exporter({ url, headers, timeoutMillis: 10_000 });
  // The SDK reports failed exports through its diagnostics: they become log lines, nothing more.
  diag.setLogger(
    {
      error: (message, ...rest) => options.logger.error(`tracing: ${message}`, rest[0]),
      warn: (message, ...rest) => options.logger.error(`tracing: ${message}`, rest[0]),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || "opspilot" }),
    sampler: samplerOf(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1_000 })],
  });
  const tracing = createRunTracing({
    tracer: provider.getTracer("opspilot"),
    model: options.model,
    captureContent: env.OPSPILOT_OTEL_CAPTURE_CONTENT === "true",
    logger: options.logger,
    ...(options.serverOf ? { serverOf: options.serverOf } : {}),
  });
  return {
    observe: tracing.observe,
    shutdown: () => settleWithin([provider.shutdown()], SHUTDOWN_GRACE_MS),
  };
}

/** The model as spans name it, read from `OPSPILOT_MODEL` without checking it (a run without a model never uses it). */
export function tracedModelOf(env: Env): TracedModel {
  const value = env.OPSPILOT_MODEL.trim();
  const separator = value.indexOf(":");
  if (value === "demo" || separator < 0) return { provider: "opspilot", name: value };
  return { provider: value.slice(0, separator), name: value.slice(separator + 1).trim() };
}

/** `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs separated by commas, values URL-encoded. */
function otlpHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    if (pair.trim() === "") continue;
    const at = pair.indexOf("=");
    if (at <= 0) throw new ConfigError(`OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas.`);
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

/** `OTEL_TRACES_SAMPLER` and its argument, as the specification names them (parentbased_always_on by default). */
function samplerOf(name: string | undefined, arg: string | undefined): Sampler {
  const ratio = () => {
    const value = arg === undefined || arg === "" ? 1 : Number(arg);
    if (!Number.isFinite(value) || value < 0 || value > 1)
      throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1; got ${JSON.stringify(arg)}.`);
    return new TraceIdRatioBasedSampler(value);
  };
  switch (name ?? "parentbased_always_on") {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return ratio();
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: ratio() });
    default:
      throw new ConfigError(
        `OTEL_TRACES_SAMPLER must be always_on, always_off, traceidratio or their parentbased_ forms; got ${JSON.stringify(name)}.`,
      );
  }
}
