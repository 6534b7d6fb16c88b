import { scalarFields } from "./data.js";
import type { Phrases } from "./phrases.js";

/** The measurements of a metrics result the demo knows by name, in the order a person reads them. */
const KNOWN: ReadonlyArray<{ key: string; unit: string }> = [
  { key: "errorRatePercent", unit: "%" },
  { key: "p95LatencyMs", unit: " ms" },
  { key: "rps", unit: "" },
  { key: "cpuPercent", unit: "%" },
  { key: "memoryPercent", unit: "%" },
  { key: "instances", unit: "" },
];

/** Error rate (%) or p95 latency (ms) from which the demo calls a service unhealthy. */
const HIGH_ERROR_RATE = 5;
const HIGH_LATENCY_MS = 1_000;

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const numberOf = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);
const textOf = (value: unknown): string | undefined =>
  typeof value === "string" || typeof value === "number" ? String(value) : undefined;

/**
 * A metrics answer in prose with a small Markdown table: a sentence on the state and the
 * two numbers that matter most, a verdict, then every measurement the result holds.
 * Fields the demo does not know (another tool's shape) still become rows, by their key.
 */
export function metricsLines(
  data: Record<string, unknown>,
  fields: { service: string; environment: string },
  p: Phrases,
): string[] {
  const measured = record(data.metrics);
  const errorRate = numberOf(measured.errorRatePercent);
  const latency = numberOf(measured.p95LatencyMs);
  const lines = [
    p.metricsSummary({
      ...fields,
      status: textOf(data.status),
      version: textOf(data.version),
      previousVersion: textOf(data.previousVersion),
      window: textOf(data.window),
      errorRate,
      latency,
    }),
  ];
  if (errorRate !== undefined || latency !== undefined) {
    const unhealthy = (errorRate ?? 0) >= HIGH_ERROR_RATE || (latency ?? 0) >= HIGH_LATENCY_MS;
    lines.push(unhealthy ? p.metricsUnhealthy(fields.service, fields.environment) : p.metricsHealthy);
  }
  const rows: Array<[string, string]> = [];
  for (const { key, unit } of KNOWN) {
    const value = measured[key];
    if (typeof value === "number") rows.push([p.metricNames[key] ?? key, `${value}${unit}`]);
  }
  const restarts = numberOf(data.restartCount);
  if (restarts !== undefined) rows.push([p.metricNames.restartCount ?? "restartCount", String(restarts)]);
  const skipped = [
    "service",
    "environment",
    "name",
    "nameZh",
    "status",
    "version",
    "previousVersion",
    "restartCount",
    "window",
    "capturedAt",
    "lastRestartAt",
  ];
  for (const [key, value] of scalarFields(
    measured,
    KNOWN.map(({ key: known }) => known),
  ))
    rows.push([key, String(value)]);
  for (const [key, value] of scalarFields(data, skipped)) rows.push([key, String(value)]);
  for (const [key, nested] of Object.entries(data)) {
    if (key === "metrics" || Object.keys(record(nested)).length === 0) continue;
    for (const [name, value] of scalarFields(nested, [])) rows.push([`${key}.${name}`, String(value)]);
  }
  if (rows.length === 0) return lines;
  return [
    ...lines,
    "",
    `| ${p.metricHeader[0]} | ${p.metricHeader[1]} |`,
    "| --- | --- |",
    ...rows.map(([name, value]) => `| ${name} | ${value} |`),
  ];
}
