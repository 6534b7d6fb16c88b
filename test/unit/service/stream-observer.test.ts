import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../../src/app/assemble.js";
import { loadEnv } from "../../../src/config/env.js";
import type { RunEvent, StreamEvent } from "../../../src/contracts/events.js";
import { collectEvents } from "../../../src/service/events/recorded-events.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-stream-observer-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("answer fragments and the runtime's observers", () => {
  it("streams fragments to the caller but shows the event observer and collectEvents only recorded events", async () => {
    const observed: RunEvent[] = [];
    const app = createApp({
      env: loadEnv({ OPSPILOT_DB: join(directory, "observer.sqlite") }),
      onEvent: (event) => observed.push(event),
    });
    try {
      const user = { id: "local", role: "operator" };
      const threadId = await app.runtime.createThread(user);
      const streamed: StreamEvent[] = [];
      for await (const event of await app.runtime.startRun({ threadId, message: "what's the weather?", user }))
        streamed.push(event);
      const deltas = streamed.filter((event) => event.type === "assistant_delta");
      const recorded = streamed.filter((event) => event.type !== "assistant_delta");
      expect(deltas.length).toBeGreaterThan(20);
      expect(observed).toEqual(recorded);
      expect(observed.map((event) => event.type)).toEqual(["run_started", "assistant_message", "run_finished"]);

      const again = await app.runtime.createThread(user);
      const collected = await collectEvents(await app.runtime.startRun({ threadId: again, message: "hello", user }));
      expect(collected.map((event) => event.type)).toEqual(["run_started", "assistant_message", "run_finished"]);
    } finally {
      await app.close();
    }
  });
});
