import { z } from "zod";
import { timeField, timeSeconds } from "../prometheus-time.js";
import { DEFAULT_MAX_BYTES } from "./digest.js";

/** The window a log read covers when the call names none: the last hour. */
export const DEFAULT_WINDOW = "now-1h";
/** Lines one call reads when the config sets no limit. */
export const DEFAULT_MAX_LINES = 5_000;
/** Characters of the observation's envelope around a digest (ok, source, fetchedAt). */
const ENVELOPE_CHARS = 300;

/** The `start` and `end` arguments of a log read. */
export const windowShape = {
  start: timeField("Start of the window (default now-1h; from an alert, a little before it started)").optional(),
  end: timeField("End of the window (default now)").optional(),
};

/** Milliseconds of a call's window. */
export function windowOf(args: { start?: string | number; end?: string | number }): { start: number; end: number } {
  const now = Date.now();
  const start = timeSeconds(args.start ?? DEFAULT_WINDOW, now)! * 1000;
  const end = timeSeconds(args.end ?? "now", now)! * 1000;
  return { start, end };
}

/** The `limit` argument: lines to read, at most the instance's `maxLines`. */
export function limitShape(maxLines: number) {
  return {
    limit: z
      .number()
      .int()
      .min(1)
      .max(maxLines)
      .optional()
      .describe(`Most lines to read and fold into patterns (default and at most ${maxLines})`),
  };
}

/** The bytes a digest may take: the instance's budget, within what the observation cap leaves. */
export function byteBudget(maxBytes: number | undefined, observationMaxChars: number | undefined): number {
  const configured = maxBytes ?? DEFAULT_MAX_BYTES;
  return observationMaxChars === undefined ? configured : Math.min(configured, observationMaxChars - ENVELOPE_CHARS);
}

/** A zod refinement: the window's end comes after its start. */
export function endAfterStart(args: { start?: string | number; end?: string | number }, issues: z.RefinementCtx): void {
  const { start, end } = windowOf(args);
  if (Number.isFinite(start) && Number.isFinite(end) && end <= start)
    issues.addIssue({ code: "custom", path: ["end"], message: "must be later than start" });
}

/** A read's time limit: one request's, plus a second for each further page of `pageLines` it may need. */
export function readTimeoutMs(requestTimeoutMs: number, maxLines: number, pageLines: number): number {
  return requestTimeoutMs + 1_000 + (Math.ceil(maxLines / pageLines) - 1) * 1_000;
}
