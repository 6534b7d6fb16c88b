/** A tool call the demo model proposes. */
export interface ProposedCall {
  /** Tool name (always one of the bound tools). */
  name: string;
  /** Arguments. */
  args: Record<string, unknown>;
}
