import { describe, expect, it } from "vitest";
import { HumanMessage, type AIMessageChunk } from "@langchain/core/messages";
import { DemoChatModel } from "../../../src/demo/model/demo-model.js";
import { textFragments } from "../../../src/demo/model/fragments.js";
import { followUp, detectIntent } from "../../../src/demo/model/intent.js";
import { withTextDeltas } from "../../../src/models/text-deltas.js";

describe("the demo model's text fragments", () => {
  it("cuts English into words and Chinese into a few characters, and joins back to the text", () => {
    const text = "【演示模型】支付服务最近有 33 条 ERROR 日志：\n- PAY-5031: 24× timeouts";
    const fragments = textFragments(text);
    expect(fragments.join("")).toBe(text);
    expect(fragments.slice(0, 7)).toEqual(["【演示", "模型】", "支付服", "务最近", "有", " ", "33 "]);
    expect(fragments).toContain("PAY-5031: ");
    expect(Math.max(...fragments.map((fragment) => [...fragment].length))).toBeLessThanOrEqual(10);
  });

  it("hands its answer to token listeners in fragments and returns the same reply as without them", async () => {
    const model = new DemoChatModel();
    const question = [new HumanMessage("what's the weather?")];
    const plain = (await model.invoke(question)) as AIMessageChunk;
    const heard: string[] = [];
    const listened = (await withTextDeltas(model, (text) => heard.push(text)).invoke(question)) as AIMessageChunk;
    expect(listened.content).toBe(plain.content);
    expect(listened.usage_metadata).toEqual(plain.usage_metadata);
    expect(listened.tool_calls).toEqual([]);
    expect(heard.join("")).toBe(plain.content);
    expect(heard.length).toBeGreaterThan(20);
  });
});

describe("the demo model's follow-up intent", () => {
  it.each([
    ["and the order service?", ["check the payment service errors in prod"], "investigate", "order", "prod"],
    ["那订单服务呢？", ["看看支付服务在生产环境最近的报错"], "investigate", "订单", "prod"],
    ["what about the order service?", ["metrics of the payment service in staging"], "metrics", "order", "staging"],
    ["and the order service?", ["restart the payment service in prod"], "restart", "order", undefined],
  ])("reads %j after %j as %s of %s", (request, earlier, kind, serviceQuery, environment) => {
    expect(followUp(detectIntent(request), earlier)).toMatchObject({ kind, serviceQuery, environment });
  });

  it("leaves a request alone when it asks something itself or nothing was asked before", () => {
    expect(followUp(detectIntent("and the order service?"), ["hello", "thanks"]).kind).toBe("help");
    expect(followUp(detectIntent("restart the order service"), ["check the payment service errors"]).kind).toBe(
      "restart",
    );
  });
});
