/**
 * The source name a thread's taint gives the messages opspilot delivers to an incident's thread
 * from outside: an alert's text, a PagerDuty incident's title, a scheduled check's finding. Their
 * words are their source's (an alert's annotations, what a model read), not a person's.
 */
export const DELIVERED_MESSAGE_SOURCE = "incident_message";

/** An incident's delivered message id: `<incidentId>:<seq>`, the incident id `inc_` and 24 hex digits. */
const DELIVERED_ID = /^inc_[0-9a-f]{24}:[1-9][0-9]*$/;

/** The id of an incident's `seq`th message in its thread (so two processes that deliver it post it once). */
export function deliveredMessageId(incidentId: string, seq: number): string {
  return `${incidentId}:${seq}`;
}

/** Whether a thread message's id is one `deliveredMessageId` gave: a message from an incident's source. */
export function isDeliveredMessageId(id: string | undefined): boolean {
  return id !== undefined && DELIVERED_ID.test(id);
}
