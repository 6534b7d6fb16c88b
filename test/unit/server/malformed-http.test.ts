import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../../src/server/start.js";
import { answerMessage } from "../../fixtures/scripted-model.js";
import { createHarness } from "../../fixtures/harness.js";

let server: RunningServer;
let port: number;

beforeAll(async () => {
  const harness = createHarness({ script: [answerMessage("unused")] });
  server = await startServer({ runtime: harness.runtime, host: "127.0.0.1", port: 0 });
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

/** Sends raw bytes on a fresh socket and returns everything the server answered. */
function rawRequest(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.end(bytes));
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

describe("requests Node's HTTP parser refuses", () => {
  it("get the API's JSON error shape: 431 for oversized headers", async () => {
    const answer = await rawRequest(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    const [head, body] = answer.split("\r\n\r\n");
    expect(head!.split("\r\n")[0]).toBe("HTTP/1.1 431 Request Header Fields Too Large");
    expect(JSON.parse(body!)).toEqual({
      error: { code: "headers_too_large", message: "The request headers are too large." },
    });
  });

  it("get the API's JSON error shape: 400 for a request that is not HTTP", async () => {
    const answer = await rawRequest("NOT HTTP AT ALL\r\n\r\n");
    const [head, body] = answer.split("\r\n\r\n");
    expect(head!.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
    expect(JSON.parse(body!)).toEqual({ error: { code: "bad_request", message: "The request is not valid HTTP." } });
  });
});
