/** An incident's Slack message: the channel it went to and, once posted, its `ts`. */
export interface SlackThreadRow {
  incidentId: string;
  channel: string;
  /** Slack's id of the message (`ts`); absent while a process is posting it. */
  ts?: string;
  /** Epoch ms the row was claimed for posting. */
  claimedAt: number;
}

/** The incidents' Slack messages, shared by every process on the database. */
export interface SlackThreadStore {
  /** The incident's row, or undefined when no process claimed it yet. */
  get(incidentId: string): Promise<SlackThreadRow | undefined>;
  /**
   * Claims the right to post the incident's message: true when the row was new, or had no `ts`
   * and was claimed before `staleBefore` (its poster died or gave up); false when another holds it.
   */
  claim(incidentId: string, channel: string, at: number, staleBefore: number): Promise<boolean>;
  /** Stores the posted message's channel id and `ts`. */
  setTs(incidentId: string, channel: string, ts: string): Promise<void>;
  /** Gives a claim up (the post failed), so the next update tries again. */
  release(incidentId: string): Promise<void>;
}
