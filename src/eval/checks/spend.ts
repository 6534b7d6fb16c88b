import { verdict, type Check } from "./check.js";

/** Tokens, cost and latency within the scenario's bounds; judged only when it sets some. */
export const checkSpend: Check = ({ scenario, trace }) => {
  const { maxTokens, maxCostUsd, maxLatencyMs } = scenario.expect.spend;
  if (maxTokens === undefined && maxCostUsd === undefined && maxLatencyMs === undefined) return undefined;
  const problems: string[] = [];
  if (maxTokens !== undefined && trace.tokens > maxTokens)
    problems.push(`${trace.tokens} tokens, at most ${maxTokens}`);
  if (maxCostUsd !== undefined && trace.costUsd > maxCostUsd)
    problems.push(`$${trace.costUsd.toFixed(4)}, at most $${maxCostUsd}`);
  if (maxLatencyMs !== undefined && trace.latencyMs > maxLatencyMs)
    problems.push(`${trace.latencyMs} ms, at most ${maxLatencyMs} ms`);
  return verdict("spend", problems, `${trace.tokens} tokens, $${trace.costUsd.toFixed(4)}, ${trace.latencyMs} ms`);
};
