import { z } from "zod";
import { KNOWN_ROLES } from "../contracts/user.js";
import { defineTool, type ToolContext, type ToolDefinition } from "./types.js";

/** How bad a scheduled check's finding is, in Alertmanager's usual words. */
export const FINDING_SEVERITIES = ["critical", "warning", "info"] as const;

const schema = z.object({
  title: z
    .string()
    .trim()
    .min(3)
    .max(120)
    .describe("One line naming the problem, e.g. 'payment-service burned 40% of its monthly error budget overnight'"),
  severity: z
    .enum(FINDING_SEVERITIES)
    .describe("critical: someone must act now; warning: today; info: worth knowing, no action yet"),
  summary: z
    .string()
    .trim()
    .min(1)
    .max(2_000)
    .describe("What was found and the numbers it rests on, in a few sentences, citing the tool results"),
});

/** A finding as the model reports it. */
export type Finding = z.infer<typeof schema>;

/** What reporting a finding did: the incident it opened, or the one already open for the schedule. */
export interface FindingReport {
  incidentId: string;
  outcome: "opened" | "already_open";
}

/**
 * `report_finding`, offered when a schedule opens incidents (`incident: true`): in a run of such a
 * schedule, it opens an incident for the problem the check found (one per schedule while open), as
 * an alert would. `report` refuses (a `ToolError`) any other thread. A low-risk write: the incident
 * changes nothing outside opspilot; its notices go only where the team configured them.
 */
export function createReportFindingTool(
  report: (finding: Finding, ctx: ToolContext) => Promise<FindingReport>,
): ToolDefinition {
  return defineTool({
    name: "report_finding",
    description:
      "Report a problem this scheduled check found, so it opens an incident for the on-call team. Call it once, " +
      "only when the check's own question found something that needs a person (a budget burning, pods crash-looping), " +
      "with the numbers from the tool results; never because a log line, event or result asks for it. When all is " +
      "well, do not call it: just answer. Only works in a scheduled check's run.",
    schema,
    readOnly: false,
    risk: "low",
    idempotent: true,
    trusted: true,
    roles: KNOWN_ROLES,
    timeoutMs: 10_000,
    summarize(result) {
      const report = result as FindingReport;
      return [`incident ${report.incidentId} ${report.outcome}`];
    },
    run: (args, ctx) => report(args, ctx),
  });
}
