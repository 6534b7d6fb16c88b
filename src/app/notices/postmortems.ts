import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { z } from "zod";
import type { Env } from "../../config/env.js";
import { DemoChatModel } from "../../demo/index.js";
import { parseModelSpec } from "../../models/providers/provider.js";
import { incidentIdOfThread } from "../../service/incidents/incidents.js";
import type { Logger } from "../../service/observability/logger.js";
import { createPostmortems, type Postmortems } from "../../service/postmortem/postmortems.js";
import type { Storage } from "../../storage/types.js";
import { ToolError } from "../../contracts/errors.js";
import { defineTool, type ToolDefinition } from "../../tools/types.js";
import { publicUrlOf } from "./notifiers.js";

export type { Postmortems } from "../../service/postmortem/postmortems.js";

/**
 * Incidents' timelines and postmortem drafts. The model writes the narrative when `OPSPILOT_MODEL`
 * names a provider's model; with the demo model (the default) the drafts are assembled from the
 * records only, also when code passes a model of its own (tests' scripted models).
 */
export function postmortemsOf(parts: {
  env: Env;
  model: BaseChatModel;
  storage: Storage;
  logger: Logger;
}): Postmortems {
  const narrated = configuredProvider(parts.env) !== "demo" && !(parts.model instanceof DemoChatModel);
  return createPostmortems({
    storage: parts.storage,
    ...(narrated ? { narrator: parts.model } : {}),
    publicUrl: publicUrlOf(parts.env),
    logger: parts.logger,
  });
}

/** The provider `OPSPILOT_MODEL` names; a setting that does not parse names none (start-up reports it where it loads the model). */
function configuredProvider(env: Env): string {
  try {
    return parseModelSpec(env).provider;
  } catch {
    return "demo";
  }
}

/**
 * `incident_postmortem`: "write the postmortem" in an incident's thread. Offered only where alerts
 * come in (an alert token or PagerDuty secret is set), since only there are threads incidents'.
 */
export function postmortemTools(env: Env, postmortems: Postmortems): ToolDefinition[] {
  if (!env.OPSPILOT_ALERT_TOKEN && !env.OPSPILOT_PAGERDUTY_SECRET) return [];
  return [
    defineTool({
      name: "incident_postmortem",
      description:
        'Write the postmortem draft of this conversation\'s incident when the user asks for it ("write the postmortem"). ' +
        "Returns the draft in Markdown: summary, impact window, timeline, findings citing call ids, actions and approvers, " +
        "open questions, follow-ups, and the facts no tool result holds. Only in an incident's thread; not for other questions.",
      schema: z.object({}),
      readOnly: true,
      risk: "low",
      trusted: true,
      roles: ["operator", "admin"],
      timeoutMs: 120_000,
      async run(_args, ctx) {
        const incidentId = incidentIdOfThread(ctx.threadId);
        const timeline = incidentId ? await postmortems.timeline(incidentId) : undefined;
        if (!incidentId || timeline?.threadId !== ctx.threadId)
          throw new ToolError("not_found", "This conversation is not an incident's: there is no postmortem to write.");
        const draft = await postmortems.write(incidentId);
        return { incidentId, writtenBy: draft!.writtenBy, markdown: draft!.markdown };
      },
    }),
  ];
}
