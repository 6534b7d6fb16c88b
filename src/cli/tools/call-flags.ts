import type { DecisionFlags } from "../args.js";
import { CliUsageError } from "../cli-error.js";
import { readArgsJson } from "../pause/decisions.js";
import type { DirectCall } from "./direct-call-model.js";
import { LIMIT_FLAG_OPTIONS, type LimitFlagValues } from "../limit-flags.js";

/** The command line as far as `--call` and `--no-model` depend on it. */
export interface CallFlagsGiven {
  /** `ask` or `chat` (or anything else typed). */
  command: string | undefined;
  thread: string | undefined;
  /** The positional words after the command, joined: `--call`'s JSON args. */
  question: string;
  decisions: DecisionFlags;
  /** `--call`'s tool name. */
  call: string | undefined;
  /** `--no-model`. */
  noModel: boolean;
}

/**
 * Reads `--call <tool> '<json>'` and `--no-model`, refusing where they do not fit: both are
 * for `ask`; `--call` starts a new thread and takes only `--approve` and `--param`;
 * `--no-model` answers a thread's pause and takes no question.
 */
export function readCallFlags(given: CallFlagsGiven): { call?: DirectCall; noModel: boolean } {
  if (given.call === undefined && !given.noModel) return { noModel: false };
  if (given.command !== "ask") throw new CliUsageError("--call and --no-model work with ask, not chat.");
  if (given.call !== undefined) {
    if (given.thread !== undefined)
      throw new CliUsageError("--call starts a new thread; answer the pause of one with --thread <id> --no-model.");
    const { reject, edit, resume } = given.decisions;
    if (reject !== undefined || edit !== undefined || resume !== undefined)
      throw new CliUsageError(
        "--call takes --approve and --param; --edit, --reject and --resume answer a pause with --thread <id>.",
      );
    return { call: directCall(given.call, given.question), noModel: true };
  }
  if (given.thread === undefined)
    throw new CliUsageError(
      "--no-model answers a thread's pause without a model: add --thread <id>, or run one tool with --call <tool> '<json>'.",
    );
  if (given.question.length > 0) throw new CliUsageError("--no-model asks no model, so it takes no question.");
  return { noModel: true };
}

/**
 * The flags a printed command repeats so that it runs as this one did: `--user`, `--role`,
 * the limit flags and `--no-model`, as given.
 */
export function carriedFlags(values: LimitFlagValues & { user?: string; role?: string }, noModel: boolean): string[] {
  const flags: string[] = [];
  if (values.user !== undefined) flags.push("--user", values.user);
  if (values.role !== undefined) flags.push("--role", values.role);
  for (const name of Object.keys(LIMIT_FLAG_OPTIONS) as Array<keyof LimitFlagValues>) {
    const value = values[name];
    if (value !== undefined) flags.push(`--${name}`, value);
  }
  if (noModel) flags.push("--no-model");
  return flags;
}

/** `--call <tool> '<json>'`: the tool and its args (`{}` when none are given). */
function directCall(tool: string, text: string): DirectCall {
  const name = tool.trim();
  if (name.length === 0) throw new CliUsageError("--call needs a tool name.");
  if (text.length === 0) return { tool: name, args: {} };
  const read = readArgsJson(text);
  if (!read.ok) throw new CliUsageError(`--call ${name}: ${read.error}.`);
  return { tool: name, args: read.args };
}
