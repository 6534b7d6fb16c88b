import type { Decision, PauseValue, MissingField, ResumeValue, WaitingCall } from "../../contracts/pause/pause.js";
import { readArgsJson, readParamValue } from "./decisions.js";
import { argsText } from "./pause.js";
import type { Prompter } from "../prompter.js";
import type { Style } from "../output/style.js";

/** Where the pause prompts read and write. */
export interface PromptIo {
  prompter: Prompter;
  /** Writes one line for the user. */
  write(line: string): void;
  style: Style;
  tagOf(callId: string): string;
}

const REJECT_WORD = "/reject";

/**
 * Asks the user, in place, for every waiting call of the pause: a value per missing field
 * (validated against the allowed values), then approve / edit / reject for high-risk calls.
 * Resolves with the resume value, or undefined when the user left (Ctrl-C, end of input).
 */
export async function promptResume(pause: PauseValue, io: PromptIo): Promise<ResumeValue | undefined> {
  const decisions: Decision[] = [];
  for (const call of pause.calls) {
    const decision = await decideCall(call, io);
    if (!decision) return undefined;
    decisions.push(decision);
  }
  return { decisions };
}

async function decideCall(call: WaitingCall, io: PromptIo): Promise<Decision | undefined> {
  const params: Record<string, unknown> = {};
  for (const field of call.missing ?? []) {
    const answer = await askField(call, field, io);
    if (answer === undefined) return undefined;
    if (answer.rejected) return askReject(call, io);
    params[field.name] = answer.value;
  }
  const filled = Object.keys(params).length > 0 ? { params } : {};
  if (call.risk !== "high") return { callId: call.callId, action: "approve", argsHash: call.argsHash, ...filled };
  return askConfirm(call, params, io);
}

async function askField(
  call: WaitingCall,
  field: MissingField,
  io: PromptIo,
): Promise<{ rejected: true } | { rejected: false; value: unknown } | undefined> {
  const { style } = io;
  // describePause already showed the field's description; here only which call and the choices.
  const options = field.enum
    ? field.enum.map((value, index) => `${index + 1}) ${style.bold(value)}`).join("   ")
    : "a value";
  io.write(
    `${io.tagOf(call.callId)} ${style.cyan(call.tool)} · ${style.bold(field.name)}: ${options}   ${style.dim(`(${REJECT_WORD} refuses the call)`)}`,
  );
  const choices = field.enum ? ` [${field.enum.join("/")}]` : "";
  for (;;) {
    const answer = await io.prompter.ask(`${field.name}${choices} › `);
    if (answer === undefined) return undefined;
    const text = answer.trim();
    if (text.length === 0) continue;
    if (text === REJECT_WORD) return { rejected: true };
    const index = /^\d+$/.test(text) && field.enum ? field.enum[Number(text) - 1] : undefined;
    const read = readParamValue(field, index ?? text);
    if (read.ok) return { rejected: false, value: read.value };
    io.write(style.red(`  ${read.error}`));
  }
}

async function askConfirm(
  call: WaitingCall,
  params: Record<string, unknown>,
  io: PromptIo,
): Promise<Decision | undefined> {
  const { style } = io;
  const args = { ...call.args, ...params };
  // An egress call's args mark what they copied from untrusted tool results, as its pause did.
  const shown = argsText(args, call.egress, style, 2_000).text;
  io.write(`${io.tagOf(call.callId)} ${style.red("high risk")}: ${style.cyan(call.tool)} ${shown}`);
  for (;;) {
    const answer = await io.prompter.ask(`Run it? [a]pprove / [e]dit / [r]eject › `);
    if (answer === undefined) return undefined;
    const choice = answer.trim().toLowerCase();
    if (["a", "approve", "y", "yes"].includes(choice)) {
      return {
        callId: call.callId,
        action: "approve",
        argsHash: call.argsHash,
        ...(Object.keys(params).length > 0 ? { params } : {}),
      };
    }
    if (["r", "reject", "n", "no"].includes(choice)) return askReject(call, io);
    if (["e", "edit"].includes(choice)) {
      const edited = await askArgs(args, io);
      if (edited === undefined) return undefined;
      if (edited !== "back") return { callId: call.callId, action: "edit", argsHash: call.argsHash, args: edited };
      continue;
    }
    if (choice.length > 0) io.write(style.red("  type a, e or r"));
  }
}

async function askArgs(
  current: Record<string, unknown>,
  io: PromptIo,
): Promise<Record<string, unknown> | "back" | undefined> {
  io.write(io.style.dim(`  current args: ${JSON.stringify(current)}`));
  for (;;) {
    const answer = await io.prompter.ask("New args as JSON (empty to go back) › ");
    if (answer === undefined) return undefined;
    if (answer.trim().length === 0) return "back";
    const read = readArgsJson(answer.trim());
    if (read.ok) return read.args;
    io.write(io.style.red(`  ${read.error}`));
  }
}

async function askReject(call: WaitingCall, io: PromptIo): Promise<Decision | undefined> {
  const answer = await io.prompter.ask("Reason for rejecting (optional) › ");
  if (answer === undefined) return undefined;
  const message = answer.trim();
  return { callId: call.callId, action: "reject", argsHash: call.argsHash, ...(message ? { message } : {}) };
}
