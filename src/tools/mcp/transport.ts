import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../../config/schema.js";
import { keepHeadAndTail } from "./stderr.js";

/** Who opspilot says it is when it connects. */
const CLIENT_INFO = { name: "opspilot", version: "0.1.0" };

/** An initialized client and what it runs over. */
export interface OpenedClient {
  client: Client;
  /** The first and last lines a stdio server wrote to stderr, the cut stated, for the log when it fails. */
  stderr(): string;
}

/** How to open one client. */
export interface OpenClientOptions {
  config: McpServerConfig;
  /** Limit of the `initialize` handshake. */
  timeoutMs: number;
  /** Set up before the handshake, so no notification sent right after it is lost. */
  prepare(client: Client): void;
  /**
   * Told when the stream carrying a call's answer breaks: the SDK would wait for that answer
   * until the call's time limit, as if the server were slow, when in fact it is gone.
   */
  onBroken(client: Client): void;
}

/**
 * Connects to one server: a child process over stdio (the editors' environment rules: only
 * the SDK's safe variables plus the entry's `env`, so opspilot's own secrets stay home), or
 * Streamable HTTP, falling back to the older HTTP+SSE transport when the server answers
 * the Streamable HTTP handshake with a 4xx, as the MCP specification describes. A server
 * that dies while it streams an answer is reported through `onBroken`.
 */
export async function openClient(options: OpenClientOptions): Promise<OpenedClient> {
  const { config } = options;
  if ("command" in config) {
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      cwd: config.cwd,
      stderr: "pipe",
    });
    const stderr = keepHeadAndTail(transport.stderr as Readable | null);
    const client = await handshake(transport, options).catch((error: unknown) => {
      throw withStderr(error, stderr());
    });
    return { client, stderr };
  }
  const url = new URL(config.url);
  const requestInit: RequestInit = { headers: config.headers ?? {} };
  let opened: Client | undefined;
  const watchedFetch = watchAnswerStreams(() => opened && options.onBroken(opened));
  try {
    opened = await handshake(new StreamableHTTPClientTransport(url, { requestInit, fetch: watchedFetch }), options);
    return { client: opened, stderr: () => "" };
  } catch (error) {
    if (!(error instanceof StreamableHTTPError) || error.code === undefined || error.code < 400 || error.code >= 500)
      throw error;
  }
  const client = await handshake(new SSEClientTransport(url, { requestInit }), options);
  return { client, stderr: () => "" };
}

async function handshake(
  transport: StdioClientTransport | StreamableHTTPClientTransport | SSEClientTransport,
  options: OpenClientOptions,
): Promise<Client> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  options.prepare(client);
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
    return client;
  } catch (error) {
    // A half-started stdio child would outlive the failed attempt.
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    throw error;
  }
}

/** `fetch` that reports when the event stream answering a POST (a call in flight) errors before it ends. */
function watchAnswerStreams(onBroken: () => void): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    const events = response.headers.get("content-type")?.includes("text/event-stream") ?? false;
    if (init?.method !== "POST" || !events || !response.body) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { value, done } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          onBroken();
          controller.error(error);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function withStderr(error: unknown, stderr: string): unknown {
  if (stderr.length === 0 || !(error instanceof Error)) return error;
  return Object.assign(error, { stderr });
}
