import { describe, expect, it } from "vitest";
import { boundObservation, maskValue } from "../../../src/execution/sanitize.js";
import type { Observation } from "../../../src/contracts/observation.js";

const data = {
  rows: Array.from({ length: 40 }, (_, i) => ({
    owner: `oncall-${i}@example.com`,
    phone: "+86 138 0013 8000",
    password: "hunter2",
    note: `token sk-live-${"a".repeat(24)} row ${i}`,
  })),
  total: 40,
};

describe("a result masked once", () => {
  it.each([100_000, 2_000])("writes the same message content as masking the whole observation (cap %i)", (cap) => {
    const observation: Observation = {
      ok: true,
      data,
      source: { tool: "search_logs" },
      fetchedAt: "2026-01-01T00:00:00.000Z",
    };
    const once = boundObservation({ ...observation, data: maskValue(data) }, cap, "c1", true);
    const twice = boundObservation(observation, cap, "c1");
    expect(once).toEqual(twice);
    expect(once.content).not.toContain("example.com");
    expect(once.content).not.toContain("hunter2");
  });

  it("still masks a failed observation's message", () => {
    const failed: Observation = { ok: false, errorCode: "internal", message: "mail ops@example.com" };
    expect(boundObservation(failed, 1_000, "c1", true)).toEqual(boundObservation(failed, 1_000, "c1"));
    expect(boundObservation(failed, 1_000, "c1", true).content).not.toContain("ops@example.com");
  });
});
