import { canonicalJson } from "../../contracts/formats/canonical.js";
import type { ArgMatcher } from "../scenario-schema.js";
import { effectiveArgs, proposedCalls, toolResults } from "../trace.js";
import { verdict, type Check } from "./check.js";

/** Valid arguments: each constraint met (by one call or by every call), and no `invalid_args` left uncorrected. */
export const checkArgs: Check = ({ scenario, trace }) => {
  const calls = proposedCalls(trace);
  const problems: string[] = [];
  for (const constraint of scenario.expect.args) {
    const ofTool = calls.filter((call) => call.tool === constraint.tool);
    const argsOf = ofTool.map((call) => effectiveArgs(trace, call.callId, call.args));
    const failing = argsOf.map((args) => mismatches(args, constraint.match));
    const wanted = describe(constraint.match);
    if (ofTool.length === 0) problems.push(`${constraint.tool} was not called with ${wanted}`);
    else if (constraint.every && failing.some((list) => list.length > 0))
      problems.push(`a ${constraint.tool} call had ${failing.find((list) => list.length > 0)!.join(", ")}`);
    else if (!constraint.every && failing.every((list) => list.length > 0))
      problems.push(`no ${constraint.tool} call had ${wanted} (got ${failing[0]!.join(", ")})`);
  }
  const results = toolResults(trace);
  results.forEach((result, index) => {
    if (result.errorCode !== "invalid_args") return;
    const corrected = results.slice(index + 1).some((later) => later.tool === result.tool && later.ok);
    if (!corrected) problems.push(`invalid_args from ${result.tool} was never corrected`);
  });
  const invalid = results.filter((result) => result.errorCode === "invalid_args").length;
  const detail =
    scenario.expect.args.length > 0
      ? `${scenario.expect.args.length} constraint(s) met${invalid ? `, ${invalid} invalid_args corrected` : ""}`
      : invalid
        ? `${invalid} invalid_args corrected`
        : "no invalid arguments";
  return verdict("args", problems, detail);
};

/** Why args miss a match, one entry per argument (empty when they fit). */
function mismatches(args: Record<string, unknown>, match: Record<string, ArgMatcher>): string[] {
  return Object.entries(match).flatMap(([name, matcher]) =>
    fits(args[name], matcher) ? [] : [`${name}=${args[name] === undefined ? "(absent)" : canonicalJson(args[name])}`],
  );
}

function fits(value: unknown, matcher: ArgMatcher): boolean {
  if (matcher !== null && typeof matcher === "object") {
    if ("absent" in matcher) return value === undefined;
    if ("oneOf" in matcher) return matcher.oneOf.some((option) => canonicalJson(option) === canonicalJson(value));
    return (
      value !== undefined &&
      new RegExp(matcher.pattern, "u").test(typeof value === "string" ? value : canonicalJson(value))
    );
  }
  return value !== undefined && canonicalJson(value) === canonicalJson(matcher);
}

function describe(match: Record<string, ArgMatcher>): string {
  return Object.entries(match)
    .map(([name, matcher]) => {
      if (matcher !== null && typeof matcher === "object") {
        if ("absent" in matcher) return `${name} absent`;
        if ("oneOf" in matcher) return `${name} in ${canonicalJson(matcher.oneOf)}`;
        return `${name} ~ /${matcher.pattern}/`;
      }
      return `${name}=${canonicalJson(matcher)}`;
    })
    .join(", ");
}
