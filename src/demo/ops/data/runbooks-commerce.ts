import { step } from "./advice-step.js";
import type { RunbookRecord } from "./types.js";

/** Runbooks of the commerce services: orders, payments, inventory, users and coupons. RB-003 covers the payment-service errors. */
export const COMMERCE_RUNBOOKS: readonly RunbookRecord[] = [
  {
    id: "RB-002",
    title: "Database connection pool exhaustion (generic)",
    titleZh: "数据库连接池耗尽通用处理",
    tags: ["database", "数据库", "connection pool", "连接池", "mysql"],
    services: ["order-service", "user-service", "inventory-service"],
    errorCodes: ["DB_POOL_EXHAUSTED", "DB_CONN_TIMEOUT"],
    summary:
      "Requests wait for a database connection because the pool is full; usually caused by slow queries or leaked connections.",
    summaryZh: "连接池已满导致请求等待数据库连接，通常由慢查询或连接泄漏引起。",
    advice: [
      step(
        "Check active versus maximum pool connections on the service dashboard.",
        "在服务监控面板上对比活跃连接数与连接池上限。",
      ),
      step(
        "List the slowest queries of the last 30 minutes (see RB-014) and kill runaway ones.",
        "查看最近 30 分钟最慢的查询（参见 RB-014），终止失控查询。",
      ),
      step(
        "Look for connection leaks: connections held longer than the request timeout.",
        "排查连接泄漏：持有时间超过请求超时的连接。",
      ),
      step(
        "If the pool is still saturated, do a rolling restart (RB-001) to release connections.",
        "若连接池仍然饱和，执行滚动重启（RB-001）释放连接。",
      ),
      step(
        "Raise the pool size only after confirming the database has spare capacity.",
        "确认数据库有余量后才可调大连接池。",
      ),
    ],
  },
  {
    id: "RB-003",
    title: "Payment service errors: upstream bank gateway timeout and DB pool exhaustion",
    titleZh: "支付服务报错处理：上游银行网关超时与数据库连接池耗尽",
    tags: ["payment", "支付", "bank gateway", "银行网关", "timeout", "超时", "error", "报错", "故障处理"],
    services: ["payment-service"],
    errorCodes: ["PAY-5031", "DB_POOL_EXHAUSTED", "UPSTREAM_RETRY"],
    summary:
      "Payment service errors: PAY-5031 means the upstream bank gateway did not answer within 3 s. Retries then hold database connections, so DB_POOL_EXHAUSTED follows and payment errors spread to checkout.",
    summaryZh:
      "支付服务报错：PAY-5031 表示上游银行网关 3 秒内未响应；重试会长时间占用数据库连接，随后出现 DB_POOL_EXHAUSTED，支付失败会扩散到下单链路。",
    advice: [
      step(
        "Check the bank gateway status page and the PAY-5031 count per channel; if one channel dominates, switch its traffic to the backup channel.",
        "查看银行网关状态页和各渠道的 PAY-5031 数量；若集中在某一渠道，将该渠道流量切到备用渠道。",
      ),
      step(
        "Lower the payment retry count from 3 to 1 (config key payment.bank.retry.max) so retries stop holding DB connections.",
        "将支付重试次数从 3 次降到 1 次（配置项 payment.bank.retry.max），避免重试长期占用数据库连接。",
      ),
      step(
        "If DB_POOL_EXHAUSTED keeps appearing after retries are reduced, do a rolling restart of payment-service (RB-001) to release stuck connections.",
        "降低重试后若仍出现 DB_POOL_EXHAUSTED，对支付服务执行滚动重启（RB-001）释放卡住的连接。",
      ),
      step(
        "If the errors started right after a deployment, roll back payment-service to the previous version (RB-004).",
        "若报错在发布后立即出现，将支付服务回滚到上一个版本（RB-004）。",
      ),
      step(
        "Reconcile payments that timed out: query the bank for their final state before retrying any charge (RB-012).",
        "对超时的支付进行对账：先向银行查询最终状态，再决定是否重新扣款（RB-012）。",
      ),
      step(
        "Notify the payments-team on-call and the bank's support line if PAY-5031 lasts longer than 15 minutes.",
        "若 PAY-5031 持续超过 15 分钟，通知支付团队值班人员和银行技术支持。",
      ),
    ],
  },
  {
    id: "RB-005",
    title: "Order creation failures",
    titleZh: "订单创建失败排查",
    tags: ["order", "订单", "checkout", "下单", "失败"],
    services: ["order-service"],
    errorCodes: ["ORD-5002", "ORD-4091"],
    summary: "Orders fail at checkout, usually because a downstream call (payment, inventory, coupon) fails.",
    summaryZh: "下单失败，通常由下游调用（支付、库存、优惠券）失败导致。",
    advice: [
      step(
        "Split ORD-5002 errors by downstream service; if most point to payment-service, follow RB-003.",
        "按下游服务拆分 ORD-5002 错误；若大部分指向支付服务，按 RB-003 处理。",
      ),
      step(
        "ORD-4091 is a duplicate submit: verify the idempotency key and do not create the order again.",
        "ORD-4091 为重复提交：核对幂等键，不要再次创建订单。",
      ),
      step("Check that stock locks are released for failed orders (RB-006).", "确认失败订单的库存锁已释放（RB-006）。"),
    ],
  },
  {
    id: "RB-006",
    title: "Inventory stock lock timeout",
    titleZh: "库存锁超时处理",
    tags: ["inventory", "库存", "lock", "锁", "timeout", "超时"],
    services: ["inventory-service"],
    errorCodes: ["INV-LOCK_TIMEOUT"],
    summary: "A stock lock was not acquired in time, often during flash sales on a hot item.",
    summaryZh: "未能及时获取库存锁，常见于热门商品秒杀期间。",
    advice: [
      step(
        "Identify the hot SKU from the log lines and enable the queue mode for it.",
        "从日志中找出热点 SKU，并为其开启排队模式。",
      ),
      step("Release locks older than 5 minutes with the inventory admin job.", "使用库存管理任务释放超过 5 分钟的锁。"),
      step(
        "Do not restart inventory-service during a sale unless locks cannot be released.",
        "大促期间除非锁无法释放，否则不要重启库存服务。",
      ),
    ],
  },
  {
    id: "RB-011",
    title: "User login failures and token errors",
    titleZh: "用户登录失败与令牌错误",
    tags: ["login", "登录", "token", "令牌", "redis", "session", "会话"],
    services: ["user-service"],
    errorCodes: ["USR-401", "REDIS_CONN_REFUSED"],
    summary: "Users cannot log in, usually because the session store (Redis) is unreachable or tokens expired early.",
    summaryZh: "用户无法登录，通常因为会话存储（Redis）不可达或令牌提前过期。",
    advice: [
      step("Check Redis availability and failover status.", "检查 Redis 可用性与主从切换状态。"),
      step(
        "Compare server clocks; skew above 30 s breaks token validation.",
        "对比服务器时钟；偏差超过 30 秒会导致令牌校验失败。",
      ),
      step("Do not flush the session store; it logs out every user.", "不要清空会话存储，否则所有用户都会被登出。"),
    ],
  },
  {
    id: "RB-012",
    title: "Payment reconciliation mismatch",
    titleZh: "支付对账差异处理",
    tags: ["payment", "支付", "reconciliation", "对账", "settlement", "结算"],
    services: ["payment-service"],
    errorCodes: ["PAY-3002"],
    summary: "The daily settlement file from the bank does not match our payment records.",
    summaryZh: "银行日终结算文件与我方支付记录不一致。",
    advice: [
      step(
        "Export the mismatched transactions and query their final state at the bank.",
        "导出差异交易，向银行查询最终状态。",
      ),
      step(
        "Never refund or charge again before the bank confirms the final state.",
        "在银行确认最终状态前，禁止退款或重复扣款。",
      ),
      step(
        "File the corrections with finance before the next settlement cut-off.",
        "在下一次结算截止前将更正提交给财务。",
      ),
    ],
  },
  {
    id: "RB-017",
    title: "Coupon over-issuance",
    titleZh: "优惠券超发处理",
    tags: ["coupon", "优惠券", "promotion", "营销", "超发"],
    services: ["coupon-service"],
    errorCodes: ["CPN-4090"],
    summary: "More coupons were issued than the campaign budget allows.",
    summaryZh: "优惠券发放数量超过活动预算。",
    advice: [
      step("Pause the campaign in the marketing console.", "在营销后台暂停该活动。"),
      step("Mark extra coupons as invalid only with marketing's approval.", "仅在营销团队批准后将超发的优惠券作废。"),
    ],
  },
];
