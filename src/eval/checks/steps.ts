import { verdict, type Check } from "./check.js";

/** A reasonable number of steps, and the expected way to stop (a loop or a limit is not an answer). */
export const checkSteps: Check = ({ scenario, trace }) => {
  const { max, min } = scenario.expect.steps;
  const expected = scenario.expect.stopReason;
  const problems: string[] = [];
  if (trace.error) problems.push(`ended early: ${trace.error}`);
  if (trace.stopReason !== expected) problems.push(`stopped by ${trace.stopReason}, expected ${expected}`);
  if (trace.steps > max) problems.push(`${trace.steps} steps, at most ${max}`);
  if (trace.steps < min) problems.push(`${trace.steps} steps, at least ${min}`);
  return verdict("steps", problems, `${trace.steps} step(s), ${trace.stopReason}`);
};
