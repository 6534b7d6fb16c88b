import type { Env } from "../../config/env.js";
import type { ConfigFile } from "../../config/schema.js";
import type { DependencyProbe, ProbeResult } from "./probe.js";

/**
 * Slack approvals' settings, checked against each other (nothing is sent to Slack): the
 * signing secret turns the buttons on; `chat.slack.users` says who a click answers as; each
 * of those users needs a token, whose role decides the click. Absent when neither is set.
 */
export function slackProbe(options: {
  env: Pick<Env, "OPSPILOT_SLACK_SIGNING_SECRET" | "OPSPILOT_API_TOKENS">;
  config: ConfigFile;
}): DependencyProbe | undefined {
  const tokens = options.env.OPSPILOT_API_TOKENS;
  const users = options.config.chat?.slack?.users ?? {};
  const mapped = Object.entries(users);
  const on = options.env.OPSPILOT_SLACK_SIGNING_SECRET !== undefined;
  if (!on && mapped.length === 0) return undefined;
  const result = (ok: boolean, detail: string): ProbeResult => ({ dependency: "slack", ok, detail });
  return {
    dependency: "slack",
    async check() {
      if (!on)
        return result(
          false,
          "Slack: chat.slack.users is set but OPSPILOT_SLACK_SIGNING_SECRET is not, so the Approve and Reject buttons are off",
        );
      if (mapped.length === 0)
        return result(false, "Slack: buttons are on but chat.slack.users maps nobody, so every click is refused");
      if (tokens === undefined || tokens.size === 0)
        return result(
          false,
          "Slack: buttons are on but OPSPILOT_API_TOKENS is not set, so no click can be tied to a role and every click is refused",
        );
      const holders = new Set([...tokens.values()].map((holder) => holder.id));
      const roleless = mapped.filter(([, user]) => !holders.has(user)).map(([, user]) => user);
      if (roleless.length > 0)
        return result(
          false,
          `Slack: ${roleless.join(", ")} ${roleless.length === 1 ? "has" : "have"} no token in OPSPILOT_API_TOKENS, so their clicks are refused`,
        );
      return result(
        true,
        `Slack: buttons on, ${mapped.length} user${mapped.length === 1 ? "" : "s"} mapped, each with a role`,
      );
    },
  };
}
