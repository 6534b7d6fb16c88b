import { describe, expect, it } from "vitest";
import { RequestError } from "../../../src/server/http-errors.js";
import { readSlackInteraction } from "../../../src/server/slack/payload.js";
import {
  encodeButtonValue,
  pauseActionsBlock,
  SLACK_BUTTON_VALUE_MAX,
  type SlackButtonValue,
} from "../../../src/service/slack/buttons.js";
import { SLACK_RESPONSE_URL_PREFIXES } from "../../../src/service/slack/outcome.js";

const RESPONSE_URL = "https://hooks.slack.com/actions/T0001/1234/abcd";
const answer: SlackButtonValue = {
  t: "thread-1",
  i: "int_0123456789abcdef",
  c: "call_1",
  h: "f".repeat(64),
  a: "approve",
};

/** A form body as Slack posts it: one `payload` field of JSON. */
function form(payload: unknown): Uint8Array {
  return new TextEncoder().encode(new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
}

function blockActions(actions: unknown[], extra: Record<string, unknown> = {}) {
  return {
    type: "block_actions",
    user: { id: "U0123ABCD", username: "olga", team_id: "T0001" },
    api_app_id: "A0001",
    container: { type: "message", message_ts: "1764700000.000100", channel_id: "C0001" },
    trigger_id: "1234.5678.abcd",
    response_url: RESPONSE_URL,
    actions,
    ...extra,
  };
}

const button = (actionId: string, value?: string) => ({
  type: "button",
  action_id: actionId,
  block_id: "b1",
  action_ts: "1764700001.000200",
  ...(value === undefined ? {} : { value }),
});

const read = (raw: Uint8Array, prefixes = SLACK_RESPONSE_URL_PREFIXES) => readSlackInteraction(raw, prefixes);

function refusal(run: () => unknown): { status: number; code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof RequestError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("reading Slack interaction requests", () => {
  it("reads an Approve click: the Slack user, the response_url and the answer the button carries", () => {
    const raw = form(blockActions([button("opspilot_approve", encodeButtonValue(answer))]));
    expect(read(raw)).toEqual({
      kind: "answers",
      slackUserId: "U0123ABCD",
      responseUrl: RESPONSE_URL,
      answers: [answer],
    });
  });

  it("acknowledges only the page link's click and other interaction types", () => {
    expect(read(form(blockActions([{ ...button("opspilot_open"), url: "https://ops.example.com/" }])))).toEqual({
      kind: "ignored",
      type: "block_actions",
    });
    expect(read(form({ type: "view_submission", user: { id: "U1" } }))).toEqual({
      kind: "ignored",
      type: "view_submission",
    });
  });

  it("refuses a button whose value is not an opspilot answer, or answers another action than its button", () => {
    expect(refusal(() => read(form(blockActions([button("opspilot_approve", "yes")]))))).toMatchObject({
      status: 400,
      code: "invalid_payload",
      message: "opspilot_approve: the button value is not JSON.",
    });
    const extra = encodeButtonValue(answer).replace("}", ',"x":1}');
    expect(refusal(() => read(form(blockActions([button("opspilot_approve", extra)]))))).toMatchObject({
      message: "opspilot_approve: the button value is not an opspilot pause answer.",
    });
    expect(
      refusal(() => read(form(blockActions([button("opspilot_reject", encodeButtonValue(answer))])))),
    ).toMatchObject({ message: 'opspilot_reject: the button value answers "approve".' });
  });

  it("refuses a response_url that is not Slack's, so no reply ever goes elsewhere", () => {
    for (const url of [
      "https://hooks.slack.com.evil.example/actions/1",
      "http://hooks.slack.com/actions/1",
      "https://user@hooks.slack.com/actions/1",
      "not a url",
    ]) {
      const raw = form(blockActions([button("opspilot_approve", encodeButtonValue(answer))], { response_url: url }));
      expect(refusal(() => read(raw))).toMatchObject({ status: 400, code: "invalid_payload" });
    }
    const loopback = form(
      blockActions([button("opspilot_approve", encodeButtonValue(answer))], { response_url: "http://127.0.0.1:9/r" }),
    );
    expect(read(loopback, ["http://127.0.0.1:9/"])).toMatchObject({
      kind: "answers",
      responseUrl: "http://127.0.0.1:9/r",
    });
  });

  it("refuses bodies that are no form with one JSON payload of the block_actions shape", () => {
    const cases: Array<[Uint8Array, string]> = [
      [new Uint8Array([0x70, 0xff, 0xfe]), "The request body is not valid UTF-8."],
      [new TextEncoder().encode("token=abc"), "The form body must carry exactly one payload field."],
      [new TextEncoder().encode("payload=1&payload=2"), "The form body must carry exactly one payload field."],
      [new TextEncoder().encode("payload=%7Bnot"), "The payload field is not valid JSON."],
    ];
    for (const [raw, message] of cases) expect(refusal(() => read(raw))).toMatchObject({ status: 400, message });
    expect(refusal(() => read(form(blockActions([]))))).toMatchObject({ status: 400, code: "invalid_payload" });
    expect(refusal(() => read(form({ ...blockActions([button("opspilot_approve")]), user: {} })))).toMatchObject({
      status: 400,
    });
  });
});

describe("the buttons of a Slack pause notice", () => {
  const call = {
    callId: "call_1",
    tool: "restart_service",
    args: { service: "payment-service", environment: "staging" },
    argsHash: "a".repeat(64),
    risk: "high" as const,
  };
  const source = { threadId: "thread-1", interruptId: "int_1", link: "https://ops.example.com/?thread=thread-1" };

  it("gives one call that waits for a yes or no Approve, Reject and the page link, each value naming what it answers", () => {
    const block = pauseActionsBlock({ ...source, calls: [call] }) as { elements: Array<Record<string, unknown>> };
    expect(block.elements.map((element) => element.action_id)).toEqual([
      "opspilot_approve",
      "opspilot_reject",
      "opspilot_open",
    ]);
    const [approve, reject, open] = block.elements;
    expect(JSON.parse(approve!.value as string)).toEqual({
      t: "thread-1",
      i: "int_1",
      c: "call_1",
      h: "a".repeat(64),
      a: "approve",
    });
    expect(JSON.parse(reject!.value as string)).toMatchObject({ a: "reject" });
    expect(approve!.confirm).toMatchObject({ title: { text: "Approve restart_service?" } });
    expect(open).toMatchObject({ url: source.link });
  });

  it("gives a call that waits for fields, or several calls, only the link to the page", () => {
    const missing = { ...call, missing: [{ name: "environment", description: "Where" }] };
    for (const calls of [[missing], [call, { ...call, callId: "call_2" }]]) {
      expect(pauseActionsBlock({ ...source, calls })).toEqual({
        type: "actions",
        elements: [
          {
            type: "button",
            action_id: "opspilot_open",
            text: { type: "plain_text", text: "Fill in on the page", emoji: true },
            url: source.link,
            style: "primary",
          },
        ],
      });
    }
  });

  it("falls back to the link when a value would pass Slack's 2000 characters", () => {
    const long = { ...call, callId: "c".repeat(SLACK_BUTTON_VALUE_MAX) };
    const block = pauseActionsBlock({ ...source, calls: [long] }) as { elements: Array<Record<string, unknown>> };
    expect(block.elements.map((element) => element.action_id)).toEqual(["opspilot_open"]);
    // A usual pause is far below it: a UUID thread, the interrupt id, a call id and a sha256.
    const usual = encodeButtonValue({ ...answer, t: crypto.randomUUID() });
    expect(usual.length).toBeLessThan(250);
  });
});
