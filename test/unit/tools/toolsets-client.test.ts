import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolsetClient } from "../../../src/tools/toolsets/http-client.js";
import { prometheusData } from "../../../src/tools/toolsets/prometheus-api.js";
import { freePort } from "../../fixtures/ports.js";

/** What the loopback server saw of each request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const seen: Seen[] = [];
let server: Server;
let base: string;
const signal = new AbortController().signal;

/** A loopback server answering by path: `/status/<code>` with that status, `/slow` after 2 s, anything else 200. */
beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      const status = /^\/prefix\/status\/(\d+)/.exec(request.url ?? "");
      if (request.url?.startsWith("/prefix/slow")) {
        setTimeout(() => response.end("{}"), 2_000).unref();
        return;
      }
      response.writeHead(status ? Number(status[1]) : 200, { "content-type": "application/json" });
      response.end(JSON.stringify(status ? "refused by the server" : { status: "success", data: { ok: 1 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/prefix/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the toolsets' HTTP client", () => {
  it("sends the configured headers, the query and a JSON body below the configured path", async () => {
    const client = createToolsetClient("Prometheus", {
      url: base,
      headers: { Authorization: "Bearer abc", "X-Scope-OrgID": "team-a" },
    });
    const answer = await client.send({
      method: "POST",
      path: "/api/v1/query",
      query: { query: 'up{job="a b"}', "match[]": ["x", "y"], time: undefined },
      body: { hello: "world" },
      signal,
    });
    expect(answer).toEqual({ status: 200, body: { status: "success", data: { ok: 1 } } });
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ method: "POST", body: '{"hello":"world"}' });
    expect(new URL(last.url, "http://x").pathname).toBe("/prefix/api/v1/query");
    expect([...new URL(last.url, "http://x").searchParams]).toEqual([
      ["query", 'up{job="a b"}'],
      ["match[]", "x"],
      ["match[]", "y"],
    ]);
    expect(last.headers).toMatchObject({
      authorization: "Bearer abc",
      "x-scope-orgid": "team-a",
      "content-type": "application/json",
      accept: "application/json",
    });
  });

  it("classifies 401 and 403 as permission_denied, 429 as rate_limited and 5xx as transient", async () => {
    const client = createToolsetClient("Prometheus", { url: base });
    const failure = (code: number) => client.send({ path: `/status/${code}`, signal });
    await expect(failure(401)).rejects.toMatchObject({
      errorCode: "permission_denied",
      message:
        "Prometheus refused the request (HTTP 401): check the headers of toolsets.prometheus in opspilot.config.json.",
    });
    await expect(failure(403)).rejects.toMatchObject({ errorCode: "permission_denied" });
    await expect(failure(429)).rejects.toMatchObject({ errorCode: "rate_limited" });
    await expect(failure(503)).rejects.toMatchObject({
      errorCode: "transient",
      message: "Prometheus failed temporarily (HTTP 503: refused by the server); try again shortly.",
    });
    await expect(prometheusData(client, { path: "/status/404", signal })).rejects.toMatchObject({
      errorCode: "not_found",
    });
  });

  it("gives transient for a server that is not listening, timeout past timeoutMs, cancelled on the call's signal", async () => {
    const down = createToolsetClient("Alertmanager", { url: `http://127.0.0.1:${await freePort()}` });
    await expect(down.send({ path: "/api/v2/silences", signal })).rejects.toMatchObject({
      errorCode: "transient",
      message: "Alertmanager could not be reached (ECONNREFUSED); it may be down or restarting.",
    });
    const slow = createToolsetClient("Alertmanager", { url: base, timeoutMs: 200 });
    await expect(slow.send({ path: "/slow", signal })).rejects.toMatchObject({
      errorCode: "timeout",
      message: "Alertmanager did not answer within 200 ms.",
    });
    const cancel = new AbortController();
    const pending = slow.send({ path: "/slow", signal: cancel.signal });
    cancel.abort();
    await expect(pending).rejects.toMatchObject({ errorCode: "cancelled" });
  });
});
