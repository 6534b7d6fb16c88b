import type { CodeCount, ResourceHit, RunbookHit } from "./data.js";
import type { Language } from "../../contracts/language.js";

/** Every sentence the demo model writes, in one language. */
export interface Phrases {
  label: string;
  greeting: string;
  thanks: string;
  help: string;
  askService: string;
  noService(query: string): string;
  toolUnavailable(tool: string): string;
  failed(tool: string, errorCode: string, message: string): string;
  service(hit: ResourceHit): string;
  logsHeader(service: string, environment: string | undefined, total: number): string;
  noErrors(service: string, environment: string | undefined): string;
  codeLine(entry: CodeCount): string;
  partialLogs: string;
  adviceHeader: string;
  runbookLines(runbook: RunbookHit, covers: string[]): string[];
  uncovered(codes: string[]): string;
  noRunbooks: string;
  cited(ids: string[]): string;
  restarted(data: { service: string; environment: string; restartedAt?: string; restartCount?: number }): string;
  rolledBack(data: { service: string; environment: string; toVersion?: string; fromVersion?: string }): string;
  rejected(action: string, service: string, message: string): string;
  /** No one approved the action in time: it was not done (`message` is the observation's, in the run's language). */
  expired(action: string, service: string, message: string): string;
  actionNames: Record<"restart" | "rollback", string>;
  metricsSummary(data: MetricsSummary): string;
  metricsUnhealthy(service: string, environment: string): string;
  metricsHealthy: string;
  /** Row names of the metrics table, by result key. */
  metricNames: Record<string, string>;
  /** Column names of the metrics table. */
  metricHeader: [string, string];
}

/** What the first sentence of a metrics answer says. */
export interface MetricsSummary {
  service: string;
  environment: string;
  status?: string;
  version?: string;
  previousVersion?: string;
  window?: string;
  errorRate?: number;
  latency?: number;
}

const zh: Phrases = {
  label: "【演示模型】",
  greeting:
    "你好！我是 opspilot 的离线演示模型，可以帮你查服务的报错日志、对照文档里的处理建议、查看指标，或在你确认后重启、回滚服务。",
  thanks: "不客气，有需要随时叫我。",
  help: [
    "我是离线演示模型，只听得懂这几类请求：",
    "- 查服务最近的报错，比如“看看支付服务最近报错”（加上“对照一下文档里的处理建议”会顺便查文档）",
    "- 查服务的指标，比如“订单服务在生产环境的指标怎么样”",
    "- 查文档，比如“数据库连接池耗尽怎么处理”",
    "- 在你确认后重启或回滚服务，比如“重启测试环境的支付服务”",
    "- 同一个会话里接着问别的服务，比如“那订单服务呢？”",
  ].join("\n"),
  askService: "请告诉我是哪个服务，例如“支付服务”。",
  noService: (query) => `没有找到与“${query}”匹配的服务。`,
  toolUnavailable: (tool) => `当前没有可用的 ${tool} 工具，无法完成这一步。`,
  failed: (tool, errorCode, message) => `${tool} 调用失败（${errorCode}）：${message}`,
  service: (hit) => `${hit.nameZh ?? hit.name ?? hit.id}（${hit.id}${hit.owner ? `，负责人 ${hit.owner}` : ""}）`,
  logsHeader: (service, environment, total) =>
    `${service}${environment ? `在 ${environment} 环境` : ""}最近的 ERROR 日志共 ${total} 条，按错误码：`,
  noErrors: (service, environment) => `${service}${environment ? `在 ${environment} 环境` : ""}最近没有 ERROR 日志。`,
  codeLine: (entry) =>
    `- ${entry.code}：${entry.count} 次${entry.lastSeen ? `（最近 ${entry.lastSeen}）` : ""}${entry.sample ? `，例如：${entry.sample}` : ""}`,
  partialLogs: "（日志结果被截断，以上计数来自截断前的部分。）",
  adviceHeader: "文档里的处理建议：",
  runbookLines: (runbook, covers) => [
    `- ${runbook.id}《${runbook.titleZh ?? runbook.title ?? runbook.id}》${covers.length ? `（覆盖 ${covers.join("、")}）` : ""}：${runbook.advice.length ? "" : "没有写具体建议。"}`,
    ...numbered(runbook.advice),
  ],
  uncovered: (codes) => `没有文档覆盖的错误码：${codes.join("、")}。`,
  noRunbooks: "文档里没有找到相关的处理建议。",
  cited: (ids) => `引用的文档：${ids.join("、")}。`,
  restarted: (data) =>
    `已重启 ${data.service}（${data.environment}）${data.restartedAt ? `，时间 ${data.restartedAt}` : ""}${data.restartCount !== undefined ? `，累计重启 ${data.restartCount} 次` : ""}。`,
  rolledBack: (data) =>
    `已回滚 ${data.service}（${data.environment}）${data.fromVersion ? `，从 ${data.fromVersion}` : ""}${data.toVersion ? ` 到 ${data.toVersion}` : " 到上一个版本"}。`,
  rejected: (action, service, message) =>
    `你拒绝了${action} ${service}，没有执行任何操作${message ? `（${message}）` : ""}。`,
  expired: (action, service, message) => `没有执行任何操作：${action} ${service} 的批准已过期。${message}`,
  actionNames: { restart: "重启", rollback: "回滚" },
  metricsSummary: (data) =>
    `${data.service} 在 ${data.environment} 环境${data.status ? `目前状态为 ${data.status}` : ""}${data.version ? `，运行版本 ${data.version}${data.previousVersion ? `（上一个版本 ${data.previousVersion}）` : ""}` : ""}。` +
    (data.errorRate !== undefined || data.latency !== undefined
      ? `${data.errorRate !== undefined ? `错误率 ${data.errorRate}%` : ""}${data.errorRate !== undefined && data.latency !== undefined ? "，" : ""}${data.latency !== undefined ? `P95 延迟 ${data.latency} ms` : ""}。`
      : ""),
  metricsUnhealthy: (service, environment) =>
    `这些数字偏高，服务不太健康；可以接着问“看看 ${service} 在 ${environment} 环境最近的报错”找原因。`,
  metricsHealthy: "这些数字看起来正常。",
  metricNames: {
    errorRatePercent: "错误率",
    p95LatencyMs: "P95 延迟",
    rps: "每秒请求数",
    cpuPercent: "CPU",
    memoryPercent: "内存",
    instances: "实例数",
    restartCount: "重启次数",
  },
  metricHeader: ["指标", "数值"],
};

const en: Phrases = {
  label: "[demo model] ",
  greeting:
    "Hello! I am opspilot's offline demo model. I can check a service's error logs, compare them with the runbooks' advice, show metrics, or restart and roll back a service once you approve.",
  thanks: "You're welcome. Ask any time.",
  help: [
    "I am the offline demo model and understand only these requests:",
    '- a service\'s recent errors, e.g. "check the payment service errors in prod" (add "and the runbook advice" to compare them with the runbooks)',
    '- a service\'s metrics, e.g. "metrics of the order service in prod"',
    '- runbook lookups, e.g. "how do I handle an exhausted connection pool"',
    '- restarting or rolling back a service once you approve, e.g. "restart the payment service in staging"',
    '- follow-ups on the same thread, e.g. "and the order service?"',
  ].join("\n"),
  askService: 'Which service do you mean? For example "the payment service".',
  noService: (query) => `No service matches "${query}".`,
  toolUnavailable: (tool) => `The ${tool} tool is not available here, so I could not do this step.`,
  failed: (tool, errorCode, message) => `${tool} failed (${errorCode}): ${message}`,
  service: (hit) => `${hit.name ?? hit.id} (${hit.id}${hit.owner ? `, owner ${hit.owner}` : ""})`,
  logsHeader: (service, environment, total) =>
    `${service}${environment ? ` in ${environment}` : ""} logged ${total} ERROR entries recently, by code:`,
  noErrors: (service, environment) =>
    `${service}${environment ? ` in ${environment}` : ""} logged no ERROR entries recently.`,
  codeLine: (entry) =>
    `- ${entry.code}: ${entry.count}×${entry.lastSeen ? ` (last ${entry.lastSeen})` : ""}${entry.sample ? `, e.g. ${entry.sample}` : ""}`,
  partialLogs: "(The log result was cut; these counts come from the part that was kept.)",
  adviceHeader: "Advice from the runbooks:",
  runbookLines: (runbook, covers) => [
    `- ${runbook.id} "${runbook.title ?? runbook.titleZh ?? runbook.id}"${covers.length ? ` (covers ${covers.join(", ")})` : ""}:${runbook.advice.length ? "" : " no concrete advice."}`,
    ...numbered(runbook.advice),
  ],
  uncovered: (codes) => `No runbook covers: ${codes.join(", ")}.`,
  noRunbooks: "The runbooks have no matching advice.",
  cited: (ids) => `Runbooks cited: ${ids.join(", ")}.`,
  restarted: (data) =>
    `Restarted ${data.service} in ${data.environment}${data.restartedAt ? ` at ${data.restartedAt}` : ""}${data.restartCount !== undefined ? ` (restart #${data.restartCount})` : ""}.`,
  rolledBack: (data) =>
    `Rolled back ${data.service} in ${data.environment}${data.fromVersion ? ` from ${data.fromVersion}` : ""}${data.toVersion ? ` to ${data.toVersion}` : " to the previous version"}.`,
  rejected: (action, service, message) =>
    `You rejected the ${action} of ${service}; nothing was done${message ? ` (${message})` : ""}.`,
  expired: (action, service, message) =>
    `Nothing was done: the approval to ${action} ${service} expired.${message ? ` ${message}` : ""}`,
  actionNames: { restart: "restart", rollback: "rollback" },
  metricsSummary: (data) =>
    `${data.service} in ${data.environment}${data.status ? ` is ${data.status}` : ""}${data.version ? `${data.status ? "," : ""} running ${data.version}${data.previousVersion ? ` (previous ${data.previousVersion})` : ""}` : ""}.` +
    (data.errorRate !== undefined || data.latency !== undefined
      ? ` ${data.window ? `Over the ${data.window}, ` : ""}${data.errorRate !== undefined ? `${data.errorRate}% of requests failed` : ""}${data.errorRate !== undefined && data.latency !== undefined ? " and " : ""}${data.latency !== undefined ? `p95 latency was ${data.latency} ms` : ""}.`
      : ""),
  metricsUnhealthy: (service, environment) =>
    `That is not healthy; ask "check the ${service} errors in ${environment}" to see why.`,
  metricsHealthy: "These numbers look normal.",
  metricNames: {
    errorRatePercent: "error rate",
    p95LatencyMs: "p95 latency",
    rps: "requests per second",
    cpuPercent: "CPU",
    memoryPercent: "memory",
    instances: "instances",
    restartCount: "restarts",
  },
  metricHeader: ["metric", "value"],
};

/** Advice as an indented numbered list, one step a line. */
function numbered(steps: string[]): string[] {
  return steps.map((step, index) => `  ${index + 1}. ${step}`);
}

/** The phrasebook of a language. */
export function phrases(language: Language): Phrases {
  return language === "zh" ? zh : en;
}
