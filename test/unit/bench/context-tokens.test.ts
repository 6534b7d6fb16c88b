import { describe, expect, it } from "vitest";
import { runContextTokens } from "../../../bench/context-tokens.js";
import { contextTokensRatios } from "../../../bench/gate.js";
import { round } from "../../../bench/stats.js";

describe("the request-tokens benchmark", () => {
  it("counts both threads in the same window, the summarizer's requests too, and puts opspilot over the peer", async () => {
    const result = await runContextTokens({ steps: 16, model: "openai:gpt-4o-mini", windowTokens: 16_000 }, () => {});
    const { bounded, summarized, unbounded } = result;
    // The default target of a 16,000-token window: 6,144 of its 14,000-token prompt limit.
    expect(result.targetTokens).toBe(6_144);
    for (const run of [bounded, summarized, unbounded]) expect(run.tokens).toHaveLength(16);
    expect(Math.max(...bounded.tokens)).toBeLessThanOrEqual(6_144);
    expect(Math.max(...unbounded.tokens)).toBeGreaterThan(14_000);
    // The peer summarized along the way, and its summarizer's requests count in its total.
    expect(summarized.summarizerCalls).toBeGreaterThan(0);
    expect(summarized.totalTokens).toBeGreaterThan(summarized.tokens.reduce((sum, tokens) => sum + tokens, 0));
    expect({ opspilot: bounded.keepsTurnTwoFact, peer: summarized.keepsTurnTwoFact }).toEqual({
      opspilot: true,
      peer: true,
    });
    expect(result.lastVsSummarized).toBe(round(bounded.tokens.at(-1)! / summarized.tokens.at(-1)!));
    expect(result.totalVsSummarized).toBe(round(bounded.totalTokens / summarized.totalTokens));
    expect(result.lastVsSummarized).toBeLessThanOrEqual(0.6);
    expect(result.totalVsSummarized).toBeLessThanOrEqual(0.6);

    expect(contextTokensRatios(result)).toEqual({
      "request tokens, bounded: last 10 steps / the 10 before": result.boundedGrowth,
      "request tokens: opspilot / createAgent+summarization, step 40": result.lastVsSummarized,
      "request tokens: opspilot / createAgent+summarization, whole thread": result.totalVsSummarized,
    });
  }, 60_000);
});
