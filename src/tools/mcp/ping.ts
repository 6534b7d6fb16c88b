import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/** How one client is watched. */
export interface PingOptions {
  client: Client;
  /** Wait after one ping's answer before the next is sent. */
  intervalMs: number;
  /** How long one ping may go unanswered. */
  timeoutMs: number;
  /** Called once, with what the SDK threw, when a ping fails; no ping follows. */
  onFailure(error: unknown): void;
}

/**
 * Sends MCP's `ping` one at a time, `intervalMs` apart, so a server reached over HTTP that
 * died is noticed without waiting for a tool call (its transport does not notice: a closed
 * event stream is reopened quietly). Returns the function that stops it.
 */
export function startPings(options: PingOptions): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const next = () => {
    timer = setTimeout(() => {
      options.client.ping({ timeout: options.timeoutMs }).then(
        () => {
          if (!stopped) next();
        },
        (error: unknown) => {
          if (stopped) return;
          stopped = true;
          options.onFailure(error);
        },
      );
    }, options.intervalMs);
    timer.unref();
  };
  next();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
