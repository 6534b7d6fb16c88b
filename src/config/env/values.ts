import { z } from "zod";

/** An integer variable in [min, max], with one message for every way it can be wrong. */
export function integer(min: number, max: number) {
  const error = `must be an integer from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/** A decimal variable of `min` or more (prices, dollars). */
export function decimal(min: number) {
  const error = `must be a number of ${min} or more`;
  return z.coerce.number({ error }).min(min, { error });
}
