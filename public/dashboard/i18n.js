// The dashboard's labels in Chinese and English; the language choice is the main page's.
import { currentLanguage } from "../lib/i18n.js";

const LABELS = {
  en: {
    title: "opspilot · dashboard",
    windowLabel: "Window",
    last7: "Last 7 days",
    last30: "Last 30 days",
    conversations: "Conversations",
    switchLanguage: "中文",
    tokenLabel: "API token",
    tokenSave: "Use token",
    range: "{since} – {until} (UTC) · {runs} runs ended",
    headlineTitle: "The three numbers",
    averageSteps: "Average steps per run",
    toolFailureRate: "Tool failure rate",
    resumeFinishRate: "Paused for a person, then finished",
    stepsDetail: "{steps} steps over {runs} runs",
    failuresDetail: "{failures} of {calls} tool calls failed",
    resumeDetail: "{finished} of {paused} paused runs finished",
    trendUp: "▲ {delta} vs the previous {days} days",
    trendDown: "▼ {delta} vs the previous {days} days",
    trendSame: "= the previous {days} days",
    trendNone: "nothing to compare in the previous {days} days",
    noData: "–",
    runsTitle: "Runs and stop reasons per day",
    toolsTitle: "Failing and slow tools",
    stepLatency: "Model step p50 / p95",
    toolLatency: "Tool call p50 / p95",
    tool: "Tool",
    calls: "Calls",
    failures: "Failures",
    failureRate: "Failure rate",
    p95: "p95",
    noFailures: "No tool failed in this window.",
    pausesTitle: "Pauses waiting for a person",
    pauseOutcomes:
      "{paused} runs paused: {finished} resumed and finished, {stopped} resumed and stopped, {cancelled} cancelled, {waiting} waiting.",
    waitingSince: "{tool} · waiting since {since}",
    noWaiting: "Nobody is being waited for.",
    moreWaiting: "Showing the oldest {shown}.",
    usageTitle: "Tokens and cost per day",
    inputTokens: "Input tokens",
    outputTokens: "Output tokens",
    cost: "Cost (USD)",
    tokens: "Tokens",
    usageTotal: "{tokens} tokens · ${cost} in this window",
    loadFailed: "Could not load the figures: {message}",
    unauthorized: "This server needs an API token.",
    forbidden: "Your token may not read the records summary.",
  },
  zh: {
    title: "opspilot · 数据面板",
    windowLabel: "时间范围",
    last7: "最近 7 天",
    last30: "最近 30 天",
    conversations: "对话",
    switchLanguage: "English",
    tokenLabel: "API 令牌",
    tokenSave: "使用令牌",
    range: "{since} – {until}（UTC）· 结束的运行 {runs} 次",
    headlineTitle: "先看三件事",
    averageSteps: "平均转了几圈",
    toolFailureRate: "工具失败率",
    resumeFinishRate: "停下来问用户之后有多少能接着跑完",
    stepsDetail: "{runs} 次运行共 {steps} 步",
    failuresDetail: "{calls} 次工具调用中失败 {failures} 次",
    resumeDetail: "{paused} 次暂停的运行中跑完 {finished} 次",
    trendUp: "▲ {delta}，对比前 {days} 天",
    trendDown: "▼ {delta}，对比前 {days} 天",
    trendSame: "与前 {days} 天持平",
    trendNone: "前 {days} 天没有可比的数据",
    noData: "–",
    runsTitle: "每天的运行与停止原因",
    toolsTitle: "失败多、耗时长的工具",
    stepLatency: "模型每步 p50 / p95",
    toolLatency: "工具调用 p50 / p95",
    tool: "工具",
    calls: "调用",
    failures: "失败",
    failureRate: "失败率",
    p95: "p95",
    noFailures: "这段时间没有工具失败。",
    pausesTitle: "等待人处理的暂停",
    pauseOutcomes:
      "暂停过的运行 {paused} 次：恢复后跑完 {finished} 次，恢复后被停止 {stopped} 次，取消 {cancelled} 次，仍在等待 {waiting} 次。",
    waitingSince: "{tool} · 自 {since} 起等待",
    noWaiting: "目前没有在等人处理的暂停。",
    moreWaiting: "只显示最早的 {shown} 个。",
    usageTitle: "每天的 token 与费用",
    inputTokens: "输入 token",
    outputTokens: "输出 token",
    cost: "费用（美元）",
    tokens: "token",
    usageTotal: "这段时间共 {tokens} token · ${cost}",
    loadFailed: "无法加载数据：{message}",
    unauthorized: "此服务器需要 API 令牌。",
    forbidden: "你的令牌无权读取记录汇总。",
  },
};

/** A dashboard label with `{name}` placeholders filled. */
export function dt(key, values = {}) {
  const text = LABELS[currentLanguage()][key] ?? LABELS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

/** Fills every `[data-label]` text and `[data-label-aria]` label of the dashboard. */
export function applyDashboardLabels(root = document) {
  document.documentElement.lang = currentLanguage() === "zh" ? "zh-CN" : "en";
  document.title = dt("title");
  for (const element of root.querySelectorAll("[data-label]")) element.textContent = dt(element.dataset.label);
  for (const element of root.querySelectorAll("[data-label-aria]"))
    element.setAttribute("aria-label", dt(element.dataset.labelAria));
}

/** A number for people in the page's language (thousands separators). */
export function formatNumber(value, digits = 0) {
  return value.toLocaleString(currentLanguage() === "zh" ? "zh-CN" : "en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}
