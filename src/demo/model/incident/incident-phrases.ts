import type { Language } from "../../../contracts/language.js";
import type { AlertFacts } from "./alert-text.js";
import type { Comparison } from "../promql.js";

/** Series shown per query, as `labels = value`; the rest are counted. */
export interface SeriesReading {
  /** `labels = value` of the first series. */
  shown: string[];
  /** Series not shown. */
  more: number;
}

/** A silence Alertmanager created, as the answer names it. */
export interface SilenceDone {
  alertname: string;
  silenceId: string;
  matchers: string;
  endsAt: string;
  /** False when a retry of the same call found the silence its first attempt made. */
  created: boolean;
}

/** Every sentence the demo model writes about an incident, in one language. */
export interface IncidentPhrases {
  alertHeader(alert: AlertFacts): string;
  ruleHolds(query: string, reading: SeriesReading): string;
  ruleClear(query: string): string;
  measured(query: string, comparison: Comparison, reading: SeriesReading): string;
  reading(query: string, reading: SeriesReading): string;
  noSeries(query: string): string;
  resultCut(query: string): string;
  followRunbook(runbookId: string, step: string): string;
  noRunbookStep: string;
  logsNeedEnvironment(service: string): string;
  offerRestart(service: string): string;
  watchResolve: string;
  offerSilence: string;
  noAlert: string;
  notAlertmanager(alertname: string): string;
  noAlertmanager(alertname: string | undefined): string;
  askDuration(alertname: string): string;
  tooLong(alertname: string): string;
  silenced(done: SilenceDone): string;
  silenceRejected(alertname: string, message: string): string;
  /** No one approved the silence in time: nothing was silenced. */
  silenceExpired(alertname: string, message: string): string;
}

const series = (reading: SeriesReading, separator: string, more: (count: number) => string) =>
  reading.shown.join(separator) + (reading.more > 0 ? more(reading.more) : "");

/** The text ending with a full stop, unless it ends with one already. */
const sentence = (text: string, stop: string) =>
  /[.!?。！？]$/.test(text.trim()) ? text.trim() : `${text.trim()}${stop}`;

const en: IncidentPhrases = {
  alertHeader: (alert) =>
    `${alert.source === "pagerduty" ? `PagerDuty incident "${alert.alertname}"` : `Alert ${alert.alertname}`}` +
    `${alert.service ? ` on ${alert.service}` : ""}${alert.since ? ` (firing since ${alert.since})` : ""}: what I read first.`,
  ruleHolds: (query, reading) =>
    `- The rule \`${query}\` still holds now: ${series(reading, "; ", (count) => `; and ${count} more series`)}.`,
  ruleClear: (query) => `- The rule \`${query}\` returns no series now: its condition does not hold at this moment.`,
  measured: (query, comparison, reading) =>
    `- What it measures, \`${query}\` (alerting at ${comparison.operator} ${comparison.threshold}), is now: ` +
    `${series(reading, "; ", (count) => `; and ${count} more series`)}.`,
  reading: (query, reading) =>
    `- \`${query}\` is now: ${series(reading, "; ", (count) => `; and ${count} more series`)}.`,
  noSeries: (query) => `- \`${query}\` returns no series now.`,
  resultCut: (query) => `- \`${query}\`: the result was too long to read here; page it with read_result.`,
  followRunbook: (runbookId, step) => `Next step: follow ${runbookId}, starting with: ${sentence(step, ".")}`,
  noRunbookStep: "Next step: no runbook covers this alert; check what changed recently (deploys, traffic) first.",
  logsNeedEnvironment: (service) =>
    `No label names the environment, so I did not read the logs: ask "check the ${service} errors in prod" for them.`,
  offerRestart: (service) =>
    `If it does not recover, I can restart ${service}: say "restart it" (the restart waits for a person's approval).`,
  watchResolve:
    "Next step: the condition does not hold now, so change nothing yet; watch whether Alertmanager reports it resolved.",
  offerSilence: 'To stop the paging while you work, say "silence this alert for 2 hours" (it waits for approval too).',
  noAlert:
    "I found no alert in this thread, so I do not know what to silence. Which alert do you mean? Ask in the thread of its incident.",
  notAlertmanager: (alertname) =>
    `"${alertname}" is a PagerDuty incident, not an Alertmanager alert: I can only silence Alertmanager alerts. Snooze it in PagerDuty.`,
  noAlertmanager: (alertname) =>
    `Alertmanager is not configured here (no alertmanager_create_silence tool), so I cannot silence ${alertname ?? "alerts"}. ` +
    "Name it in the config file's toolsets.alertmanager.",
  askDuration: (alertname) =>
    `For how long should I silence ${alertname}? For example: "silence this alert for 2 hours".`,
  tooLong: (alertname) => `A silence lasts at most 7 days; ask for a shorter one to silence ${alertname}.`,
  silenced: (done) =>
    `Silenced ${done.alertname} (${done.matchers}) until ${done.endsAt}: silence id ${done.silenceId}.` +
    `${done.created ? "" : " (An earlier attempt of this call had created it.)"} It can be ended early with alertmanager_expire_silence.`,
  silenceRejected: (alertname, message) =>
    `You rejected the silence of ${alertname}; nothing was silenced${message ? ` (${message})` : ""}.`,
  silenceExpired: (alertname, message) =>
    `Nothing was silenced: the approval to silence ${alertname} expired.${message ? ` ${message}` : ""}`,
};

const zh: IncidentPhrases = {
  alertHeader: (alert) =>
    `${alert.source === "pagerduty" ? `PagerDuty 事件“${alert.alertname}”` : `告警 ${alert.alertname}`}` +
    `${alert.service ? `（${alert.service}）` : ""}${alert.since ? `自 ${alert.since} 起触发` : ""}，我先查到的情况：`,
  ruleHolds: (query, reading) =>
    `- 告警规则 \`${query}\` 现在仍然成立：${series(reading, "；", (count) => `；另有 ${count} 条序列`)}。`,
  ruleClear: (query) => `- 告警规则 \`${query}\` 现在没有返回序列：此刻条件不成立。`,
  measured: (query, comparison, reading) =>
    `- 规则度量的 \`${query}\`（${comparison.operator} ${comparison.threshold} 时告警）现在是：` +
    `${series(reading, "；", (count) => `；另有 ${count} 条序列`)}。`,
  reading: (query, reading) => `- \`${query}\` 现在是：${series(reading, "；", (count) => `；另有 ${count} 条序列`)}。`,
  noSeries: (query) => `- \`${query}\` 现在没有返回序列。`,
  resultCut: (query) => `- \`${query}\`：结果太长，这里读不完；可以用 read_result 分页查看。`,
  followRunbook: (runbookId, step) => `下一步：按 ${runbookId} 处理，先做：${sentence(step, "。")}`,
  noRunbookStep: "下一步：没有文档覆盖这个告警；先查最近的变更（发布、流量）。",
  logsNeedEnvironment: (service) =>
    `告警的标签没有写明环境，所以我没有查日志；可以问“看看生产环境 ${service} 的报错”。`,
  offerRestart: (service) => `如果没有恢复，我可以重启 ${service}：说“重启它”即可（重启要等人确认）。`,
  watchResolve: "下一步：条件此刻不成立，先不要改动，观察 Alertmanager 是否报告恢复。",
  offerSilence: "处理期间不想再被通知，可以说“把这个告警静默两小时”（同样要等人确认）。",
  noAlert: "这个会话里没有找到告警，我不知道要静默哪个。你指的是哪个告警？请在它的事件会话里提出。",
  notAlertmanager: (alertname) =>
    `“${alertname}”是 PagerDuty 事件，不是 Alertmanager 告警；我只能静默 Alertmanager 告警，请在 PagerDuty 里暂停它。`,
  noAlertmanager: (alertname) =>
    `这里没有配置 Alertmanager（没有 alertmanager_create_silence 工具），无法静默${alertname ? ` ${alertname}` : "告警"}。请在配置文件的 toolsets.alertmanager 中配置它。`,
  askDuration: (alertname) => `要把 ${alertname} 静默多久？例如：“把这个告警静默两小时”。`,
  tooLong: (alertname) => `静默最长 7 天；请换一个更短的时长来静默 ${alertname}。`,
  silenced: (done) =>
    `已静默 ${done.alertname}（${done.matchers}），到 ${done.endsAt} 为止：静默 id ${done.silenceId}。` +
    `${done.created ? "" : "（这是同一次调用先前创建的静默。）"}需要提前结束可以用 alertmanager_expire_silence。`,
  silenceRejected: (alertname, message) =>
    `你拒绝了静默 ${alertname}，没有创建任何静默${message ? `（${message}）` : ""}。`,
  silenceExpired: (alertname, message) => `没有创建任何静默：静默 ${alertname} 的批准已过期。${message}`,
};

/** The incident phrasebook of a language. */
export function incidentPhrases(language: Language): IncidentPhrases {
  return language === "zh" ? zh : en;
}
