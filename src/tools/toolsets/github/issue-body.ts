/** What a follow-up issue says, before it is written as Markdown. */
export interface FollowUpIssue {
  /** What happened, in a few sentences (the postmortem's summary). */
  summary: string;
  /** The postmortem's follow-ups, one task each. */
  followUps: readonly string[];
  /** The incident it follows up, when there is one. */
  incidentId?: string;
  /** The opspilot thread that filed it. */
  threadId: string;
  /** Who approved filing it. */
  approvedBy?: string;
  /** `threadId:callId`: marks the issue as this call's. */
  idempotencyKey: string;
}

/**
 * The issue's Markdown body: the summary, the follow-ups as a task list, and a footer naming the
 * incident, the thread and the approver, with the call's key in an HTML comment (not shown).
 */
export function issueBody(issue: FollowUpIssue): string {
  const origin = [
    issue.incidentId ? `incident ${issue.incidentId}` : undefined,
    `opspilot thread ${issue.threadId}`,
    issue.approvedBy ? `approved by ${issue.approvedBy}` : undefined,
  ].filter((part) => part !== undefined);
  return [
    issue.summary.trim(),
    "",
    "## Follow-ups",
    "",
    ...issue.followUps.map((item) => `- [ ] ${item.trim()}`),
    "",
    "---",
    `Filed from ${origin.join(", ")}.`,
    `<!-- opspilot ${issue.idempotencyKey} -->`,
  ].join("\n");
}
