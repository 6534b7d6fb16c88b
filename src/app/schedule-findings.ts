import type { Env } from "../config/env.js";
import type { ConfigFile } from "../config/schema.js";
import { ToolError } from "../contracts/errors.js";
import { createIncidents } from "../service/incidents/incidents.js";
import type { IncidentWorker } from "../service/incidents/worker.js";
import { createScheduleFindings, type ScheduleFindings } from "../service/schedules/schedule-findings.js";
import type { Storage } from "../storage/types.js";
import { createReportFindingTool } from "../tools/report-finding.js";
import type { ToolDefinition } from "../tools/types.js";
import { publicUrlOf } from "./notices/notifiers.js";
import type { Notices } from "./notices/notices.js";

/** What the findings are delivered with once the app's notices exist. */
export interface FindingParts {
  storage: Storage;
  notices: Pick<Notices, "writeBack" | "announceResolved">;
}

/**
 * The incidents job (every 5 s) delivers a finding's messages, never the tool itself: a graph run
 * started inside the tool's run would inherit its config and be checkpointed as its subgraph.
 */
const LEFT_TO_THE_INCIDENTS_JOB: Pick<IncidentWorker, "kick"> = { kick: async () => undefined };

/**
 * The findings of schedules that open incidents (`incident: true`): `report_finding` among the
 * tools when one does, and `connect`, which builds their incidents once the incident worker and
 * the notices exist (the tool comes first: the graph, and so the notices' registry, is built from the tools).
 * A finding opens an incident as an alert does: Slack threads, PagerDuty notes, resolved notices.
 */
export function scheduleFindingsOf(env: Env, config: ConfigFile) {
  const schedules = config.schedules ?? [];
  let findings: ScheduleFindings | undefined;
  const tools: ToolDefinition[] = schedules.some((schedule) => schedule.incident)
    ? [
        createReportFindingTool((finding, ctx) => {
          if (!findings) throw new ToolError("transient", "Incidents are not ready yet; report the finding again.");
          return findings.report(finding, ctx);
        }),
      ]
    : [];
  return {
    tools,
    connect({ storage, notices }: FindingParts): ScheduleFindings {
      const user = env.OPSPILOT_ALERT_USER;
      const incidents = createIncidents({
        storage,
        worker: LEFT_TO_THE_INCIDENTS_JOB,
        user,
        onDelivery: (incidentId, outcome) => notices.writeBack.delivered(incidentId, outcome),
        onResolved: notices.announceResolved,
      });
      findings = createScheduleFindings({ schedules, incidents, storage, user, publicUrl: publicUrlOf(env) });
      return findings;
    },
  };
}
