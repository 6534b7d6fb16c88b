import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { ToolError } from "../../../src/contracts/errors.js";
import { McpConnection } from "../../../src/tools/mcp/connection.js";
import { freePort } from "../../fixtures/ports.js";

describe("McpConnection waiting for a connection", () => {
  it("leaves no abort listener on the call's signal, however many calls wait", async () => {
    const logged: string[] = [];
    const connection = new McpConnection({
      name: "down",
      // Nothing listens there: each connection is refused at once.
      config: { url: `http://127.0.0.1:${await freePort()}/mcp` },
      connectTimeoutMs: 2_000,
      // No backoff: every call dials the server again, so each one waits on a connection attempt.
      backoffMs: 0,
      maxBackoffMs: 0,
      logger: { error: (message) => void logged.push(message) },
      onChange: () => undefined,
    });
    // One signal for all the calls, as a run's signal outlives each of its tool calls.
    const run = new AbortController();
    try {
      for (let call = 0; call < 3; call += 1) {
        const sent = connection.send({ tool: "anything", args: {}, signal: run.signal });
        await expect(sent).rejects.toBeInstanceOf(ToolError);
        await expect(sent).rejects.toThrow(/^MCP server "down" is down: /);
      }
      expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
      expect(logged.length).toBeGreaterThanOrEqual(1);
    } finally {
      await connection.close();
    }
  });
});
