import type { EnvironmentId, MetricsRecord } from "./types.js";

type Row = [
  service: string,
  environment: EnvironmentId,
  errorRate: number,
  p95: number,
  rps: number,
  cpu: number,
  memory: number,
  instances: number,
];

// service, environment, error rate %, p95 ms, rps, cpu %, memory %, instances
const ROWS: readonly Row[] = [
  ["payment-service", "prod", 7.8, 2350, 420, 71, 83, 6],
  ["payment-service", "staging", 0.2, 180, 12, 18, 41, 2],
  ["order-service", "prod", 1.9, 640, 610, 48, 62, 8],
  ["order-service", "staging", 0.1, 150, 15, 12, 38, 2],
  ["user-service", "prod", 0.1, 45, 1800, 35, 51, 6],
  ["user-service", "staging", 0.0, 40, 30, 9, 33, 2],
  ["inventory-service", "prod", 0.3, 95, 740, 41, 57, 4],
  ["inventory-service", "staging", 0.1, 88, 20, 10, 35, 2],
  ["api-gateway", "prod", 0.9, 310, 5200, 55, 47, 12],
  ["api-gateway", "staging", 0.1, 60, 90, 8, 30, 2],
  ["notification-service", "prod", 0.6, 420, 260, 22, 44, 3],
  ["notification-service", "staging", 0.0, 210, 6, 5, 28, 1],
  ["search-service", "prod", 0.2, 120, 980, 58, 69, 6],
  ["search-service", "staging", 3.4, 1450, 25, 77, 88, 2],
  ["risk-service", "prod", 0.4, 160, 450, 46, 58, 4],
  ["risk-service", "staging", 0.0, 90, 12, 7, 31, 2],
  ["logistics-service", "prod", 0.3, 230, 140, 27, 49, 3],
  ["logistics-service", "staging", 0.0, 120, 4, 6, 27, 1],
  ["coupon-service", "prod", 0.2, 75, 330, 19, 40, 3],
  ["coupon-service", "staging", 0.0, 60, 8, 5, 26, 1],
];

/** Current metrics (last 5 minutes) of every service in every environment. */
export const METRICS: readonly MetricsRecord[] = ROWS.map(
  ([service, environment, errorRatePercent, p95LatencyMs, rps, cpuPercent, memoryPercent, instances]) => ({
    service,
    environment,
    errorRatePercent,
    p95LatencyMs,
    rps,
    cpuPercent,
    memoryPercent,
    instances,
  }),
);
