import { observationTexts } from "../trace.js";
import { distinct, verdict, type Check } from "./check.js";
import { DEFAULT_FACT_PATTERNS } from "./fact-patterns.js";

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
  const allowed = new Set(allow);
  const all = { ...DEFAULT_FACT_PATTERNS, ...patterns };
  const problems: string[] = [];
  for (const [kind, source] of Object.entries(all)) {
    if (disable.includes(kind)) continue;
    const found = distinct([...trace.answer.matchAll(new RegExp(source, "gu"))].map((match) => match[0]));
    const invented = found.filter((id) => !allowed.has(id) && !known.includes(id));
    if (invented.length > 0) problems.push(`${kind} ${invented.join(", ")} in the answer but in no observation`);
  }
  for (const source of forbid)
    if (new RegExp(source, "iu").test(trace.answer)) problems.push(`the answer matches forbidden /${source}/`);
  return verdict("fabrication", problems, "every id and code in the answer was observed");
};
