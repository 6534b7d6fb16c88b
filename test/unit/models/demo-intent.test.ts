import { describe, expect, it } from "vitest";
import { detectIntent } from "../../../src/demo/model/intent.js";

describe("detectIntent", () => {
  it.each([
    [
      "看看支付服务最近报错，顺便对照一下文档里的处理建议",
      { kind: "investigate", language: "zh", serviceQuery: "支付", wantsDocs: true, environment: undefined },
    ],
    [
      "Check the payment service's recent errors and compare them with the handling advice in the runbooks",
      { kind: "investigate", language: "en", serviceQuery: "payment", wantsDocs: true },
    ],
    ["重启支付服务", { kind: "restart", serviceQuery: "支付", environment: undefined }],
    ["帮我重启一下线上的订单服务", { kind: "restart", serviceQuery: "订单", environment: "prod" }],
    ["restart the payment service in staging", { kind: "restart", serviceQuery: "payment", environment: "staging" }],
    [
      "roll back checkout-api to v1.4.2 in prod",
      { kind: "rollback", serviceQuery: "checkout-api", environment: "prod", toVersion: "v1.4.2" },
    ],
    ["支付服务的指标怎么样", { kind: "metrics", serviceQuery: "支付" }],
    ["What does the runbook say about PAY_GATEWAY_TIMEOUT?", { kind: "docs", docsQuery: "PAY_GATEWAY_TIMEOUT" }],
    // A figure's name is a metrics question, even when it says "error".
    [
      "What is the p95 latency and error rate of the payment service in production?",
      { kind: "metrics", serviceQuery: "payment", environment: "prod" },
    ],
    ["支付服务的错误率和延迟是多少", { kind: "metrics", serviceQuery: "支付" }],
    ["Why is the payment service's error rate up? Check its logs", { kind: "investigate", serviceQuery: "payment" }],
    // The code is what to look up, not the word "runbooks".
    ["How do we handle PAY-5031? Check the runbooks", { kind: "docs", docsQuery: "PAY-5031" }],
    ["你好", { kind: "greeting", language: "zh" }],
    ["Hello!", { kind: "greeting", language: "en" }],
    ["thanks", { kind: "thanks" }],
    ["what's the weather", { kind: "help" }],
  ])("reads %s", (text, expected) => {
    expect(detectIntent(text)).toMatchObject(expected);
  });
});
