import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_CHARS } from "../../../src/contracts/limits.js";
import { fitMessage } from "../../../src/service/incidents/alert-delivery.js";

describe("an incident message fitted to what a run accepts", () => {
  it("keeps a message of the longest length whole and cuts a longer one, saying so, within the limit", () => {
    const longest = "a".repeat(MAX_MESSAGE_CHARS);
    expect(fitMessage(longest)).toBe(longest);
    const cut = fitMessage(`${longest}b`);
    expect(cut).toBe(`${"a".repeat(MAX_MESSAGE_CHARS - 20)}\n[message cut]`);
    expect(cut.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(fitMessage(`${longest}b`, " ")).toBe(`${"a".repeat(MAX_MESSAGE_CHARS - 20)} [message cut]`);
  });
});
