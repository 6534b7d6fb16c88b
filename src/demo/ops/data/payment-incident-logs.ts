import type { LogSpec } from "./log-specs.js";

const PAY = "payment-service";

/** The payment-service incident in prod: fixed counts the tests and the demo rely on. */
export const PAYMENT_INCIDENT: readonly LogSpec[] = [
  {
    service: PAY,
    environment: "prod",
    level: "ERROR",
    code: "PAY-5031",
    count: 24,
    withinHours: 3,
    minSecondsAgo: 95,
    messages: [
      "Upstream bank gateway timeout after {ms}ms (channel={channel}, order={order})",
      "调用上游银行网关超时 {ms}ms，渠道 {channel}，订单 {order}",
      "Charge failed: bank gateway did not respond within 3000ms (channel={channel})",
    ],
  },
  {
    service: PAY,
    environment: "prod",
    level: "ERROR",
    code: "DB_POOL_EXHAUSTED",
    count: 9,
    withinHours: 2,
    minSecondsAgo: 140,
    messages: [
      "Database connection pool exhausted (active=50/50, waiting={n}), request rejected",
      "数据库连接池耗尽（active=50/50），等待队列 {n}，请求被拒绝",
    ],
  },
  {
    service: PAY,
    environment: "prod",
    level: "WARN",
    code: "UPSTREAM_RETRY",
    count: 8,
    withinHours: 3,
    messages: [
      "Retrying bank gateway call (attempt 2/3, channel={channel}, order={order})",
      "银行网关调用重试中（第 3/3 次），渠道 {channel}",
    ],
  },
  {
    service: PAY,
    environment: "prod",
    level: "WARN",
    code: "DB_SLOW_QUERY",
    count: 5,
    withinHours: 6,
    messages: ["Slow query on payments.transactions took {ms}ms"],
  },
  {
    service: PAY,
    environment: "prod",
    level: "INFO",
    code: null,
    count: 22,
    withinHours: 24,
    messages: [
      "Payment captured (order={order}, channel={channel})",
      "Refund processed (order={order})",
      "支付成功，订单 {order}",
      "Health check passed",
    ],
  },
  {
    service: PAY,
    environment: "staging",
    level: "WARN",
    code: "UPSTREAM_RETRY",
    count: 1,
    withinHours: 20,
    messages: ["Retrying sandbox bank gateway call (attempt 2/3, channel=SANDBOX)"],
  },
  {
    service: PAY,
    environment: "staging",
    level: "INFO",
    code: null,
    count: 10,
    withinHours: 48,
    messages: ["Sandbox payment captured (order={order})", "Deployed 3.9.0-rc.1 smoke test passed"],
  },
];
