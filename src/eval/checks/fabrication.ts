import { observationTexts } from "../trace.js";
import { verdict, type Check } from "./check.js";
import { DEFAULT_FACT_PATTERNS, unobservedFacts } from "../../contracts/facts.js";

/**
 * No invented facts: every id or code the answer names (by the dataset's spellings, plus the
 * scenario's own patterns) appears in an observation, the question, or a pause the user saw and
 * answered; and the answer matches none of the scenario's forbidden patterns.
 */
export const checkFabrication: Check = ({ scenario, trace }) => {
  const { patterns, disable, allow, forbid } = scenario.expect.fabrication;
  const known = [
    ...observationTexts(trace),
    trace.question,
    ...trace.pauses.map((pause) => JSON.stringify([pause.interrupt.calls, pause.resume])),
  ].join("\n");
  const all = Object.entries({ ...DEFAULT_FACT_PATTERNS, ...patterns }).filter(([kind]) => !disable.includes(kind));
  const invented = unobservedFacts(trace.answer, known, { patterns: Object.fromEntries(all), allow });
  const problems: string[] = [];
  for (const [kind] of all) {
    const facts = invented.filter((fact) => fact.kind === kind).map((fact) => fact.fact);
    if (facts.length > 0) problems.push(`${kind} ${facts.join(", ")} in the answer but in no observation`);
  }
  for (const source of forbid)
    if (new RegExp(source, "iu").test(trace.answer)) problems.push(`the answer matches forbidden /${source}/`);
  return verdict("fabrication", problems, "every id and code in the answer was observed");
};
