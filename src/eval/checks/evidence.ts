import { observationTexts } from "../trace.js";
import { verdict, type Check } from "./check.js";
import { factPattern } from "../../contracts/facts.js";

/** An answer built on what the tools returned: each expected fact is in the answer and in an observation. */
export const checkEvidence: Check = ({ scenario, trace }) => {
  const facts = scenario.expect.evidence;
  if (facts.length === 0) return undefined;
  const observations = observationTexts(trace);
  const problems: string[] = [];
  for (const fact of facts) {
    const pattern = factPattern(fact);
    const inAnswer = pattern.test(trace.answer);
    const observed = observations.some((text) => pattern.test(text));
    if (!inAnswer && !observed) problems.push(`${fact} is in neither the answer nor any observation`);
    else if (!inAnswer) problems.push(`the answer does not cite ${fact}`);
    else if (!observed) problems.push(`${fact} is in the answer but in no observation`);
  }
  return verdict("evidence", problems, `cites ${facts.join(", ")}`);
};
