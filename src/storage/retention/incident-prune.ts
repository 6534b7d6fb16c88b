import type { PruneReport } from "./prune.js";

/**
 * The incidents whose rows go: resolved before the cut-off (`p`, epoch ms), with no checkpoint of
 * their thread left, that is, their thread was removed whole (by this prune or an earlier one) or
 * never ran. A firing (or silenced) incident's rows are never pruned. The incident's own row stays:
 * a group's next incident id counts its episodes, so a removed row would hand its id out again.
 */
function goneIncidents(p: string): string {
  return `SELECT i.incident_id FROM opspilot_incidents i WHERE i.status = 'resolved' AND i.resolved_at < ${p}
    AND NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = i.thread_id)`;
}

/**
 * Statements that prune the rows kept beside incidents and threads, after the threads' own
 * tables, each with where it is counted; `p` is the placeholder of the cut-off in ms (`?` or `$1`),
 * which each statement uses once.
 */
export function incidentPruneStatements(p: string): ReadonlyArray<[keyof PruneReport | undefined, string]> {
  return [
    // An incident's timeline entries, its postmortem draft, its Slack message's `ts` and the
    // messages its thread was given go with its thread; a message not yet delivered stays.
    ["incidentLog", `DELETE FROM opspilot_incident_log WHERE incident_id IN (${goneIncidents(p)})`],
    ["postmortems", `DELETE FROM opspilot_postmortems WHERE incident_id IN (${goneIncidents(p)})`],
    [undefined, `DELETE FROM opspilot_slack_threads WHERE incident_id IN (${goneIncidents(p)})`],
    [
      undefined,
      `DELETE FROM opspilot_incident_messages WHERE delivered_at IS NOT NULL AND incident_id IN (${goneIncidents(p)})`,
    ],
    // A queued message that failed stays for its thread's queue to show until it is as old as the records.
    [undefined, `DELETE FROM opspilot_queued_messages WHERE status = 'failed' AND finished_at < ${p}`],
  ];
}

/**
 * What a thread removed whole leaves behind in the coordination tables, by thread id: a hand-over
 * no process took over and a deadline of a pause that no longer waits.
 */
export const THREAD_COORDINATION_TABLES: readonly string[] = ["opspilot_handoffs", "opspilot_pause_deadlines"];
