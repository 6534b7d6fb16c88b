import type { Language } from "../../../contracts/language.js";
import type { AlertFacts } from "./alert-text.js";
import { durationMinutes } from "./duration.js";

/** Longest silence Alertmanager's tool creates (a week); a longer request is refused before any call. */
export const MAX_SILENCE_MINUTES = 7 * 24 * 60;

/** A request to silence the thread's alert. */
export interface SilenceRequest {
  /** How long, in minutes, when the request says. */
  minutes?: number;
}

/** One matcher of `alertmanager_create_silence`. */
export interface SilenceMatcher {
  name: string;
  value: string;
  isRegex: false;
}

/** Labels that say how loud an alert is, not which one it is: never part of a silence. */
const NOT_IDENTIFYING = new Set(["severity"]);

const SILENCE_WORDS = /\b(?:silence|mute|snooze)\b|静默|屏蔽|静音|免打扰/i;
/** Ending, listing or asking about silences is not asking for one. */
const NOT_A_SILENCE =
  /\bun-?(?:silence|mute|snooze)|\b(?:expire|end|remove|delete|lift|cancel|stop|list|show)\s+(?:(?:the|this|that|my|all|its|any)\s+)?(?:silenc|mut)|\b(?:is|are) there\b|\bany silence|取消|解除|删除|撤销|结束|停止|查看|列出|有没有|有哪些|是否/i;

/** Reads a request to silence (mute) an alert, and how long for; undefined when the text asks nothing of the sort. */
export function readSilenceRequest(text: string): SilenceRequest | undefined {
  if (!SILENCE_WORDS.test(text) || NOT_A_SILENCE.test(text)) return undefined;
  const minutes = durationMinutes(text);
  return minutes === undefined ? {} : { minutes };
}

/** The matchers that silence exactly this alert: its alertname, then its identifying labels (severity left out). */
export function silenceMatchers(alert: AlertFacts): SilenceMatcher[] {
  const labels = alert.labels.filter(([name]) => name !== "alertname" && !NOT_IDENTIFYING.has(name));
  return [
    { name: "alertname", value: alert.alertname, isRegex: false },
    ...labels.map(([name, value]) => ({ name, value, isRegex: false as const })),
  ];
}

/** A duration as people say it: "2 hours", "90 minutes", "1 day"; "2 小时", "90 分钟", "1 天". */
export function durationText(minutes: number, language: Language): string {
  const [count, unit] =
    minutes % 1_440 === 0
      ? [minutes / 1_440, "day"]
      : minutes % 60 === 0
        ? [minutes / 60, "hour"]
        : [minutes, "minute"];
  if (language === "zh") return `${count} ${{ day: "天", hour: "小时", minute: "分钟" }[unit]!}`;
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

/** The silence's comment: names the incident (its alert and start) so Alertmanager's readers know where it came from. */
export function silenceComment(alert: AlertFacts, minutes: number, language: Language): string {
  const duration = durationText(minutes, language);
  const comment =
    language === "zh"
      ? `应 opspilot 中告警 ${alert.alertname}${alert.since ? `（自 ${alert.since} 起触发）` : ""}事件会话里的请求静默 ${duration}。`
      : `Silenced for ${duration} as asked in the opspilot incident thread of ${alert.alertname}${alert.since ? ` (firing since ${alert.since})` : ""}.`;
  return comment.length <= 400 ? comment : `${comment.slice(0, 399)}…`;
}
