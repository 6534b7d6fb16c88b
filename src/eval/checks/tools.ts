import { proposedCalls, toolResults } from "../trace.js";
import { distinct, verdict, type Check } from "./check.js";

/** The right tools: required ones proposed, forbidden ones never, in the required order, not too many calls. */
export const checkTools: Check = ({ scenario, trace }) => {
  const { required, forbidden, order, maxCalls } = scenario.expect.tools;
  const calls = proposedCalls(trace);
  if (required.length + forbidden.length + order.length === 0 && maxCalls === undefined) return undefined;
  const called = new Set(calls.map((call) => call.tool));
  const problems: string[] = [];
  const missing = required.filter((tool) => !called.has(tool));
  if (missing.length > 0) problems.push(`never called ${missing.join(", ")}`);
  const bad = forbidden.filter((tool) => called.has(tool));
  if (bad.length > 0) problems.push(`called forbidden ${bad.join(", ")}`);
  const results = toolResults(trace);
  for (const [before, after] of order) {
    const first = calls.find((call) => call.tool === after);
    if (!first) continue;
    if (!results.some((result) => result.tool === before && result.seq < first.seq))
      problems.push(`called ${after} before any result of ${before}`);
  }
  if (maxCalls !== undefined && calls.length > maxCalls) problems.push(`${calls.length} calls, at most ${maxCalls}`);
  const seen = distinct(calls.map((call) => call.tool));
  return verdict("tools", problems, seen.length > 0 ? `called ${seen.join(", ")}` : "called no tool");
};
