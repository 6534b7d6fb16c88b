import type { Decision, PauseValue, MissingField, ResumeValue, WaitingCall } from "../../contracts/pause/pause.js";
import type { DecisionFlags } from "../args.js";
import { CliUsageError } from "../cli-error.js";

/** A value typed for a missing field, checked against its allowed values. */
export type ParamValue = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Reads a typed value for a missing field: one of the allowed values when the field has
 * them; otherwise JSON when it parses as a number, boolean or null, else the text itself.
 */
export function readParamValue(field: MissingField, raw: string): ParamValue {
  const text = raw.trim();
  if (field.enum) {
    const match =
      field.enum.find((allowed) => allowed === text) ??
      field.enum.find((allowed) => allowed.toLowerCase() === text.toLowerCase());
    return match !== undefined
      ? { ok: true, value: match }
      : { ok: false, error: `${field.name} must be one of ${field.enum.join(", ")} (got "${text}")` };
  }
  if (/^(-?\d+(\.\d+)?|true|false|null)$/.test(text)) return { ok: true, value: JSON.parse(text) as unknown };
  return text.length > 0 ? { ok: true, value: text } : { ok: false, error: `${field.name} needs a value` };
}

/** Reads `--edit` / interactive JSON args: a JSON object, or an error to show. */
export function readArgsJson(text: string): { ok: true; args: Record<string, unknown> } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: `not valid JSON: ${text}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, error: 'the args must be a JSON object, e.g. {"environment":"prod"}' };
  return { ok: true, args: value as Record<string, unknown> };
}

/**
 * Turns the decision flags into the resume value for this pause. Refuses flags that do not
 * fit it (a high-risk call without `--approve`, a missing or unknown `--param`, `--edit`
 * with several waiting calls), so nothing is sent that the user did not say.
 */
export function decisionsFromFlags(pause: PauseValue, flags: DecisionFlags): ResumeValue {
  const chosen = [
    flags.resume !== undefined,
    flags.reject !== undefined,
    flags.edit !== undefined,
    flags.approve || flags.params.length > 0,
  ].filter(Boolean).length;
  if (chosen > 1) throw new CliUsageError("Use one kind of answer: --approve/--param, --edit, --reject or --resume.");
  if (flags.resume !== undefined) return fullResume(flags.resume);
  if (flags.reject !== undefined) {
    const message = flags.reject.trim();
    return {
      decisions: pause.calls.map((call) => ({
        callId: call.callId,
        action: "reject",
        argsHash: call.argsHash,
        ...(message ? { message } : {}),
      })),
    };
  }
  if (flags.edit !== undefined) return editResume(pause, flags.edit);
  const params = paramMap(flags.params);
  checkParamsAreAsked(pause, params);
  return { decisions: pause.calls.map((call) => approveDecision(call, params, flags.approve)) };
}

function fullResume(text: string): ResumeValue {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliUsageError('--resume is not valid JSON; expected {"decisions":[...]}.');
  }
  // The runtime validates the shape against the waiting calls and refuses a bad one.
  return value as ResumeValue;
}

function editResume(pause: PauseValue, text: string): ResumeValue {
  if (pause.calls.length !== 1) {
    throw new CliUsageError(
      `${pause.calls.length} calls are waiting; --edit needs exactly one. Use --resume '{"decisions":[...]}' to answer each.`,
    );
  }
  const read = readArgsJson(text);
  if (!read.ok) throw new CliUsageError(`--edit: ${read.error}.`);
  const call = pause.calls[0]!;
  return { decisions: [{ callId: call.callId, action: "edit", argsHash: call.argsHash, args: read.args }] };
}

function paramMap(pairs: readonly string[]): Map<string, string> {
  const params = new Map<string, string>();
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new CliUsageError(`--param needs name=value (got "${pair}").`);
    params.set(pair.slice(0, at).trim(), pair.slice(at + 1));
  }
  return params;
}

function checkParamsAreAsked(pause: PauseValue, params: Map<string, string>): void {
  const asked = new Set(pause.calls.flatMap((call) => (call.missing ?? []).map((field) => field.name)));
  for (const name of params.keys()) {
    if (!asked.has(name)) {
      const hint =
        asked.size > 0
          ? `missing fields: ${[...asked].join(", ")}`
          : "no field is missing; use --edit to change the args";
      throw new CliUsageError(`No waiting call asks for "${name}" (${hint}).`);
    }
  }
}

function approveDecision(call: WaitingCall, params: Map<string, string>, approved: boolean): Decision {
  const filled: Record<string, unknown> = {};
  for (const field of call.missing ?? []) {
    const raw = params.get(field.name);
    if (raw === undefined) {
      const example = field.enum ? field.enum.join("|") : "VALUE";
      throw new CliUsageError(
        `${call.tool} needs ${field.name}: add --param ${field.name}=${field.enum?.[0] ?? "VALUE"} (allowed: ${example}).`,
      );
    }
    const read = readParamValue(field, raw);
    if (!read.ok) throw new CliUsageError(`--param ${read.error}.`);
    filled[field.name] = read.value;
  }
  if (call.risk === "high" && !approved) {
    throw new CliUsageError(
      `${call.tool} is a high-risk action: add --approve to run it as shown, or answer with --edit or --reject.`,
    );
  }
  const hasParams = Object.keys(filled).length > 0;
  return { callId: call.callId, action: "approve", argsHash: call.argsHash, ...(hasParams ? { params: filled } : {}) };
}
