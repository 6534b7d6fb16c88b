import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadEnv } from "../../src/config/env.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { startFromEnv } from "../../src/server/start.js";
import { ApiClient, frameToEvent, readSseFrames, startTestServer, type TestServer } from "../fixtures/http.js";

/** An answer read whole from the socket. */
interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** POSTs a JSON body through `agent`, so consecutive calls share its keep-alive connection. */
function post(agent: Agent, url: string, body: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** The events of an SSE body read whole. */
async function eventsOf(text: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const frame of readSseFrames(new Response(text).body!)) events.push(frameToEvent(frame));
  return events;
}

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function serve(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const server = await startTestServer(options);
  servers.push(server);
  return server;
}

describe("a body over the limit", () => {
  it("answers 413 and lets the next request on the same keep-alive agent through", async () => {
    const server = await serve();
    const threadId = await server.client.createThread();
    await server.client.run(threadId, "看看支付服务最近报错");
    const { body } = await server.client.thread(threadId);
    const { callId } = (body.interrupt as { calls: Array<{ callId: string }> }).calls[0]!;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const resumeUrl = `${server.url}/api/threads/${threadId}/resume`;
      const tooLarge = await post(agent, resumeUrl, JSON.stringify({ padding: "x".repeat(2 * 1024 * 1024) }));
      const resume = { decisions: [{ callId, action: "approve", params: { environment: "prod" } }] };
      const resumed = await post(agent, resumeUrl, JSON.stringify(resume));

      expect(tooLarge.status).toBe(413);
      expect(tooLarge.headers.connection).toBe("close");
      expect(JSON.parse(tooLarge.text)).toEqual({
        error: { code: "body_too_large", message: "The request body exceeds 65536 bytes." },
      });
      expect(resumed.status).toBe(200);
      expect(resumed.headers["content-type"]).toMatch(/^text\/event-stream/);
      expect((await eventsOf(resumed.text)).at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    } finally {
      agent.destroy();
    }
  });
});

describe("the run-start rate limit", () => {
  it("refuses a caller's fourth run start in a minute with 429 and Retry-After, but not reads or cancels", async () => {
    const server = await serve({ rateLimitPerMinute: 3 });
    const threadIds = [
      await server.client.createThread(),
      await server.client.createThread(),
      await server.client.createThread(),
    ];
    const refused = await server.client.request("POST", "/api/threads");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.json()).toEqual({
      error: { code: "rate_limited", message: "Too many runs started: at most 3 per minute. Try again in 60 s." },
    });

    const thread = `/api/threads/${threadIds[0]}`;
    const starts: Array<[string, unknown]> = [
      [`${thread}/runs`, { message: "hello" }],
      [`${thread}/resume`, { decisions: [{ callId: "call_1", action: "reject" }] }],
      [`${thread}/recover`, undefined],
    ];
    for (const [path, body] of starts) {
      const response = await server.client.request("POST", path, body);
      expect({ path, status: response.status }).toEqual({ path, status: 429 });
    }
    expect((await server.client.request("GET", thread)).status).toBe(200);
    expect((await server.client.request("GET", `${thread}/events?after=0`)).status).toBe(200);
    expect((await server.client.request("GET", "/api/records/summary")).status).toBe(200);
    expect((await server.client.request("POST", `${thread}/cancel`)).status).toBe(202);
  });

  it("counts each API user on their own when tokens are configured", async () => {
    const tokens = new Map([
      ["alice-token-0001", { id: "alice", role: "operator" }],
      ["bobby-token-0002", { id: "bob", role: "operator" }],
    ]);
    const server = await serve({ auth: { tokens }, rateLimitPerMinute: 2 });
    const alice = new ApiClient(server.url, "alice-token-0001");
    const bob = new ApiClient(server.url, "bobby-token-0002");
    const threadId = await alice.createThread();
    await alice.run(threadId, "hello");
    expect((await alice.request("POST", "/api/threads")).status).toBe(429);
    expect((await bob.request("POST", "/api/threads")).status).toBe(201);
    expect((await server.client.request("POST", "/api/threads")).status).toBe(401);
  });

  it("allows 60 run starts a minute by default and none are refused when the limit is 0", async () => {
    const limited = await serve();
    for (let index = 0; index < 60; index += 1) await limited.client.createThread();
    const refused = await limited.client.request("POST", "/api/threads");
    expect(refused.status).toBe(429);
    const seconds = Number(refused.headers.get("retry-after"));
    expect(seconds === 59 || seconds === 60).toBe(true);
    expect(await refused.json()).toEqual({
      error: {
        code: "rate_limited",
        message: `Too many runs started: at most 60 per minute. Try again in ${seconds} s.`,
      },
    });

    const unlimited = await serve({ rateLimitPerMinute: 0 });
    const statuses = new Set<number>();
    for (let index = 0; index < 61; index += 1)
      statuses.add((await unlimited.client.request("POST", "/api/threads")).status);
    expect([...statuses]).toEqual([201]);
  });
});

describe("the limits from the environment", () => {
  it("applies OPSPILOT_METRICS_TOKEN and OPSPILOT_RATE_LIMIT_PER_MINUTE to the server npm start runs", async () => {
    const directory = mkdtempSync(join(tmpdir(), "opspilot-limits-"));
    const server = await startFromEnv(
      loadEnv({
        OPSPILOT_DB: join(directory, "opspilot.sqlite"),
        PORT: "0",
        OPSPILOT_API_TOKENS: "alice-token-0001=alice:operator",
        OPSPILOT_METRICS_TOKEN: "scrape-token-0003",
        OPSPILOT_RATE_LIMIT_PER_MINUTE: "1",
        OPSPILOT_LOG_LEVEL: "silent",
      }),
    );
    try {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
      const scraped = await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer scrape-token-0003" } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain("# TYPE opspilot_runs_started_total counter");
      const alice = new ApiClient(server.url, "alice-token-0001");
      expect((await alice.request("POST", "/api/threads")).status).toBe(201);
      expect((await alice.request("POST", "/api/threads")).status).toBe(429);
    } finally {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
