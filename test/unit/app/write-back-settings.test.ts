import { describe, expect, it } from "vitest";
import { loadEnv } from "../../../src/config/env.js";
import { writeBackOf } from "../../../src/app/notices/notifiers.js";
import type { Storage } from "../../../src/storage/types.js";
import type { ToolRegistry } from "../../../src/tools/registry.js";

const parts = { storage: {} as Storage, logger: { error: () => undefined }, registry: {} as ToolRegistry };

describe("write-back settings", () => {
  it("stops start-up when the bot token names no channel", () => {
    const env = loadEnv({ OPSPILOT_SLACK_BOT_TOKEN: "xoxb-1234-abcdefgh" });
    expect(() => writeBackOf(env, parts)).toThrow(
      "OPSPILOT_SLACK_BOT_TOKEN is set without OPSPILOT_SLACK_CHANNEL: name the channel to post to.",
    );
  });

  it("stops start-up when the PagerDuty key names no user to write as", () => {
    const env = loadEnv({ OPSPILOT_PAGERDUTY_API_TOKEN: "u+abcdefghij" });
    expect(() => writeBackOf(env, parts)).toThrow(
      "OPSPILOT_PAGERDUTY_API_TOKEN is set without OPSPILOT_PAGERDUTY_FROM: name the e-mail of the PagerDuty user the notes are written as.",
    );
  });

  it("names a bad bot token and a bad From address in one line", () => {
    expect(() => loadEnv({ OPSPILOT_SLACK_BOT_TOKEN: "not-a-token", OPSPILOT_PAGERDUTY_FROM: "nobody" })).toThrow(
      /OPSPILOT_SLACK_BOT_TOKEN.*must be a Slack bot token \(xoxb-\.\.\.\).*OPSPILOT_PAGERDUTY_FROM.*must be the e-mail address of a PagerDuty user/,
    );
  });
});
