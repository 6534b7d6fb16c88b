import { maskSensitive, maskValue } from "./sanitize.js";

/** Longest summary kept: a record is read in a table, not a result store. */
export const ARGS_SUMMARY_MAX_CHARS = 240;
const VALUE_MAX_CHARS = 60;

/**
 * A readable, masked line of a call's arguments for the records (`service=payment-service,
 * environment=prod`), kept beside the digest so an auditor sees what was asked without the
 * secrets. Values are masked whole (by key and by pattern) before any is cut, since a cut can
 * leave a piece of a secret no pattern recognises; the joined line is masked once more.
 */
export function summarizeArgs(rawArgs: unknown): string {
  const args = maskValue(rawArgs);
  const entries =
    args !== null && typeof args === "object" && !Array.isArray(args)
      ? Object.entries(args as Record<string, unknown>).map(([key, value]) => `${key}=${valueText(value)}`)
      : args === undefined
        ? []
        : [valueText(args)];
  const line = maskSensitive(entries.join(", "));
  return line.length <= ARGS_SUMMARY_MAX_CHARS ? line : `${line.slice(0, ARGS_SUMMARY_MAX_CHARS - 1)}…`;
}

function valueText(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return text.length <= VALUE_MAX_CHARS ? text : `${text.slice(0, VALUE_MAX_CHARS - 1)}…`;
}
