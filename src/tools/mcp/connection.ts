import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { ToolError } from "../../contracts/errors.js";
import type { ConnectionOptions, SendCall } from "./connection-options.js";
import { pingFailure, startFailure } from "./failures.js";
import { startPings } from "./ping.js";
import { openClient } from "./transport.js";

/** The executor's signal carries every call's time limit; this only stops the SDK's own 60 s default. */
const REQUEST_TIMEOUT_MS = 610_000;
const LIST_CHANGED_DEBOUNCE_MS = 50;

/**
 * One MCP server: connects, lists its tools, follows `tools/list_changed`, pings it when
 * asked to, and reconnects after a failure — in the background with exponential backoff,
 * and on the next call once the backoff has passed. Each outage is logged once when it
 * starts and once when it ends. Never throws outside `send`, whose failures callers classify.
 */
export class McpConnection {
  /** Tools the server offered at the last successful listing (kept while it is down). */
  tools: Tool[] = [];
  /** `up` once connected and listed. */
  status: "up" | "down" = "down";
  /** Why the server is down, in words safe to serve on `/healthz`. */
  error: string | undefined = "connecting";
  /** What a stdio server wrote to stderr before its last failure (first and last lines), for doctor and the log. */
  stderr: string | undefined;
  private client: Client | undefined;
  private stopPings: (() => void) | undefined;
  /** When the current outage was logged; undefined while up (and before the first failure). */
  private downSince: number | undefined;
  private connecting: Promise<Client | undefined> | undefined;
  private failures = 0;
  private nextAttemptAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: ConnectionOptions) {}

  /** Connects once; a failure is logged, kept for `/healthz` and retried in the background. */
  async start(): Promise<void> {
    await this.connect();
  }

  /** Sends one `tools/call`, connecting first when needed. Throws what the SDK throws, or a `ToolError`. */
  async send(call: SendCall): Promise<CallToolResult> {
    const client = await this.ready(call.signal);
    return (await client.callTool(
      { name: call.tool, arguments: call.args, ...(call.meta ? { _meta: call.meta } : {}) },
      undefined,
      { signal: call.signal, timeout: REQUEST_TIMEOUT_MS },
    )) as CallToolResult;
  }

  /** Drops a client whose transport broke; the next call (or the background timer) connects anew. */
  broken(): void {
    this.drop("connection lost");
  }

  /** Stops reconnecting and closes the client (a stdio server's process ends with it). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.refreshTimer);
    const client = this.detach() ?? (await this.connecting?.catch(() => undefined));
    await client?.close().catch(() => undefined);
  }

  private async ready(signal: AbortSignal): Promise<Client> {
    if (this.client) return this.client;
    const { name } = this.options;
    const down = () => new ToolError("transient", `MCP server "${name}" is down: ${this.error ?? "unreachable"}.`);
    // Within the backoff a call fails fast instead of spawning or dialing the server again.
    if (!this.connecting && Date.now() < this.nextAttemptAt) throw down();
    let onAbort = () => undefined as void;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new ToolError("cancelled", `The call to MCP server "${name}" was stopped.`));
      if (signal.aborted) onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
    });
    aborted.catch(() => undefined);
    try {
      const client = await Promise.race([this.connect(), aborted]);
      if (!client) throw down();
      return client;
    } finally {
      // A signal that outlives the call (a run's) must not gather a listener per connection wait.
      signal.removeEventListener("abort", onAbort);
    }
  }

  private connect(): Promise<Client | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    this.connecting ??= this.attempt().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async attempt(): Promise<Client | undefined> {
    clearTimeout(this.timer);
    const { config, connectTimeoutMs } = this.options;
    let opened: Awaited<ReturnType<typeof openClient>> | undefined;
    try {
      opened = await openClient({
        config,
        timeoutMs: connectTimeoutMs,
        prepare: (client) => {
          client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refreshSoon(client));
        },
        onBroken: (client) => {
          if (this.client === client) this.broken();
        },
      });
      const tools = await listAll(opened.client, connectTimeoutMs);
      if (this.closed) {
        await opened.client.close();
        return undefined;
      }
      const { client, stderr } = opened;
      client.onclose = () => {
        if (this.client !== client) return;
        this.detach();
        // A stdio server that died usually said why on stderr.
        this.markDown("connection lost", stderrError(stderr()), 0);
      };
      this.client = client;
      this.watch(client);
      this.failures = 0;
      this.error = undefined;
      this.stderr = undefined;
      if (this.downSince !== undefined)
        this.options.logger.info?.(
          `MCP server "${this.options.name}" is back up after ${((Date.now() - this.downSince) / 1000).toFixed(1)} s`,
        );
      this.downSince = undefined;
      const changed = this.status !== "up" || JSON.stringify(tools) !== JSON.stringify(this.tools);
      this.status = "up";
      this.tools = tools;
      if (changed) this.options.onChange();
      return client;
    } catch (error) {
      await opened?.client.close().catch(() => undefined);
      if (this.closed) return undefined;
      this.failures += 1;
      const delay = Math.min(this.options.maxBackoffMs, this.options.backoffMs * 2 ** (this.failures - 1));
      this.markDown(startFailure(error), error, delay);
      return undefined;
    }
  }

  /** Pings an HTTP server while `client` is the one in use; a failed ping drops it at once. */
  private watch(client: Client): void {
    const intervalMs = this.options.pingIntervalMs;
    if (intervalMs === undefined) return;
    this.stopPings = startPings({
      client,
      intervalMs,
      timeoutMs: Math.min(intervalMs, this.options.connectTimeoutMs),
      onFailure: (error) => {
        if (this.client === client) this.drop(pingFailure(error), error);
      },
    });
  }

  /** Forgets the client in use (stopping its pings) and returns it. */
  private detach(): Client | undefined {
    const client = this.client;
    this.client = undefined;
    this.stopPings?.();
    this.stopPings = undefined;
    return client;
  }

  private drop(reason: string, error?: unknown): void {
    const client = this.detach();
    if (!client) return;
    this.markDown(reason, error, 0);
    void client.close().catch(() => undefined);
  }

  private markDown(reason: string, error: unknown, retryInMs: number): void {
    if (this.closed) return;
    const wasUp = this.status === "up";
    this.status = "down";
    this.error = reason;
    this.stderr = stderrOf(error);
    this.nextAttemptAt = Date.now() + retryInMs;
    // Each outage is logged once, not every backoff round.
    if (this.downSince === undefined) {
      this.downSince = Date.now();
      // The server's own words, when it left some, say more than the error that carried them.
      this.options.logger.error(`MCP server "${this.options.name}" is down: ${reason}`, this.stderr ?? error ?? "");
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.connect(), retryInMs);
    this.timer.unref();
    if (wasUp) this.options.onChange();
  }

  private refreshSoon(client: Client): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      listAll(client, this.options.connectTimeoutMs).then(
        (tools) => {
          if (this.client !== client || JSON.stringify(tools) === JSON.stringify(this.tools)) return;
          this.tools = tools;
          this.options.onChange();
        },
        (error: unknown) =>
          this.options.logger.error(
            `MCP server "${this.options.name}" announced new tools but did not list them`,
            error,
          ),
      );
    }, LIST_CHANGED_DEBOUNCE_MS);
    this.refreshTimer.unref();
  }
}

/** A stdio server's stderr as the error of a lost connection, or none when it wrote nothing. */
function stderrError(stderr: string): unknown {
  return stderr.length > 0 ? Object.assign(new Error("the server's stderr"), { stderr }) : undefined;
}

/** The stderr excerpt a failure carries (see `withStderr` in transport.ts). */
function stderrOf(error: unknown): string | undefined {
  const stderr = (error as { stderr?: unknown } | null | undefined)?.stderr;
  return typeof stderr === "string" && stderr.length > 0 ? stderr : undefined;
}

/** Every page of `tools/list`. */
async function listAll(client: Client, timeoutMs: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}
