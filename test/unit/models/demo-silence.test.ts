import { describe, expect, it } from "vitest";
import { readAlert } from "../../../src/demo/model/incident/alert-text.js";
import { chineseNumber, durationMinutes } from "../../../src/demo/model/incident/duration.js";
import { detectIntent } from "../../../src/demo/model/intent.js";
import { inIncident } from "../../../src/demo/model/incident/incident-intent.js";
import {
  durationText,
  readSilenceRequest,
  silenceComment,
  silenceMatchers,
} from "../../../src/demo/model/incident/silence.js";

const ALERT = [
  "Alertmanager alert PaymentHighErrorRate is firing since 2026-12-01T19:36:44Z (1 firing alert(s) in the group).",
  "Labels: alertname=PaymentHighErrorRate, instance=10.0.0.7:8080, service=payment-service, severity=critical",
  'Rule expression: rate(http_errors_total{service="payment-service"}[1m]) > 0.5',
  "Investigate: find the cause with the metrics, logs and runbooks, and say what should be done.",
].join("\n");

describe("durationMinutes", () => {
  it.each([
    ["silence this alert for 2 hours", 120],
    ["silence it for 30 minutes", 30],
    ["mute PaymentHighErrorRate for 2h", 120],
    ["mute it for 90 min", 90],
    ["snooze it for 1.5 hours", 90],
    ["silence it for an hour and a half", 90],
    ["silence it for half an hour", 30],
    ["silence it for 1 hour 30 minutes", 90],
    ["silence it for 2h30m", 150],
    ["silence it for a day", 1_440],
    ["silence it for forty-five minutes", 45],
    ["把这个告警静默两小时", 120],
    ["静默这个告警 1 小时", 60],
    ["静默两个小时", 120],
    ["静默半小时", 30],
    ["静默半个小时", 30],
    ["静默一个半小时", 90],
    ["静默十五分钟", 15],
    ["静默三十分", 30],
    ["静默两小时三十分钟", 150],
    ["静默一百二十分钟", 120],
    ["静默一天", 1_440],
    ["静默 2h", 120],
  ])("reads %s as %i minutes", (text, minutes) => {
    expect(durationMinutes(text)).toBe(minutes);
  });

  it.each([
    "silence this alert",
    "mute the HighLatency5m alert",
    "silence the 500ms latency alert",
    "把这个告警静默，十分感谢",
    "静默 12月1日 的告警",
  ])("finds no duration in %s", (text) => {
    expect(durationMinutes(text)).toBeUndefined();
  });

  it("reads Chinese numerals below a thousand", () => {
    expect(["两", "十", "十五", "二十", "四十五", "一百二十", "三百零五", "12"].map(chineseNumber)).toEqual([
      2, 10, 15, 20, 45, 120, 305, 12,
    ]);
    expect(chineseNumber("半")).toBeUndefined();
  });
});

describe("readSilenceRequest", () => {
  it.each([
    ["silence this alert for 2 hours", { minutes: 120 }],
    ["Please mute it for 30m", { minutes: 30 }],
    ["把这个告警静默两小时", { minutes: 120 }],
    ["屏蔽这个告警半小时", { minutes: 30 }],
    ["silence it", {}],
  ])("reads %s", (text, expected) => {
    expect(readSilenceRequest(text)).toEqual(expected);
  });

  it.each([
    "unsilence this alert",
    "un-mute it",
    "expire the silence",
    "end the silence for PaymentHighErrorRate",
    "list silences",
    "is there a silence for this alert?",
    "取消静默",
    "解除这个告警的静默",
    "有没有静默",
    "the alert was silenced yesterday",
  ])("does not read %s as a request to silence", (text) => {
    expect(readSilenceRequest(text)).toBeUndefined();
  });

  it("wins over the words of other requests, in English and Chinese", () => {
    expect(detectIntent("把这个告警静默两小时")).toMatchObject({
      kind: "silence",
      language: "zh",
      silence: { minutes: 120 },
    });
    expect(detectIntent("mute the restart alert for 2h")).toMatchObject({ kind: "silence", language: "en" });
  });
});

describe("the silence of a thread's alert", () => {
  it("matches the alertname and the identifying labels, never severity, and never as a regex", () => {
    expect(silenceMatchers(readAlert(ALERT)!)).toEqual([
      { name: "alertname", value: "PaymentHighErrorRate", isRegex: false },
      { name: "instance", value: "10.0.0.7:8080", isRegex: false },
      { name: "service", value: "payment-service", isRegex: false },
    ]);
  });

  it("names the incident in its comment, in the request's language", () => {
    expect(silenceComment(readAlert(ALERT)!, 120, "en")).toBe(
      "Silenced for 2 hours as asked in the opspilot incident thread of PaymentHighErrorRate (firing since 2026-12-01T19:36:44Z).",
    );
    expect(silenceComment(readAlert(ALERT)!, 90, "zh")).toBe(
      "应 opspilot 中告警 PaymentHighErrorRate（自 2026-12-01T19:36:44Z 起触发）事件会话里的请求静默 90 分钟。",
    );
    expect([durationText(1, "en"), durationText(60, "en"), durationText(2_880, "en"), durationText(30, "zh")]).toEqual([
      "1 minute",
      "1 hour",
      "2 days",
      "30 分钟",
    ]);
  });

  it("finds the alert in the thread's earlier messages, and none in a thread without one", () => {
    const request = detectIntent("silence it for 2 hours");
    expect(inIncident(request, ["what now?", ALERT]).alert?.alertname).toBe("PaymentHighErrorRate");
    expect(inIncident(request, ["check the payment service errors"]).alert).toBeUndefined();
  });

  it("gives a request about no named service the alert's service", () => {
    expect(inIncident(detectIntent("restart it"), [ALERT])).toMatchObject({
      kind: "restart",
      serviceQuery: "payment-service",
    });
    expect(inIncident(detectIntent("重启订单服务"), [ALERT])).toMatchObject({ serviceQuery: "订单" });
    expect(inIncident(detectIntent("restart it"), [])).toMatchObject({ kind: "restart", serviceQuery: undefined });
  });
});
