import { parseArgs } from "node:util";
import { KNOWN_ROLES, type RunUser } from "../contracts/user.js";
import { CliUsageError } from "./cli-error.js";
import type { RunLimitsRequest } from "../contracts/limits.js";
import { LIMIT_FLAG_OPTIONS, parseLimitFlags } from "./limit-flags.js";
import { carriedFlags, readCallFlags } from "./tools/call-flags.js";
import type { DirectCall } from "./tools/direct-call-model.js";
import { MultitaskStrategySchema, type MultitaskStrategy } from "../service/runtime/multitask-strategy.js";

/** The flags that answer a pause from the command line. */
export interface DecisionFlags {
  /** Run the waiting calls as shown (required for high-risk calls). */
  approve: boolean;
  /** `name=value` pairs that fill missing fields. */
  params: string[];
  /** Refuse the waiting calls; the text is the optional reason. */
  reject?: string;
  /** Replacement args (JSON) for the single waiting call. */
  edit?: string;
  /** A whole resume value (JSON), for call-by-call answers. */
  resume?: string;
}

/** What the command line asks for. */
export interface CliArgs {
  /** `help` when `--help` was given; `tools` when `--tools` was; `call` when `--call` was. */
  command: "ask" | "chat" | "help" | "tools" | "call";
  /** The question (positional words after the command, joined). */
  question?: string;
  /** Thread to continue, resume or recover. */
  thread?: string;
  decisions: DecisionFlags;
  /** Raw events as JSON lines. */
  json: boolean;
  /** Never prompt, even on a TTY. */
  noInput: boolean;
  /** Who asks. */
  user: RunUser;
  /** This run's profile and limits (`--profile`, `--max-steps`, `--max-time`, `--token-budget`, `--cost-budget`). */
  limits: RunLimitsRequest;
  /** The one tool call of `--call <tool> '<json>'`. */
  call?: DirectCall;
  /** No model is asked (`--call`, `--no-model`): a tool's observation is the answer. */
  noModel: boolean;
  /** What a question does when its thread is running or paused (`--multitask`); asked on a terminal when absent. */
  multitask?: MultitaskStrategy;
  /**
   * The flags a printed command repeats so that it runs as this one did: `--user`, `--role`,
   * the limit flags and `--no-model`, as given (output flags such as `--json` are the reader's choice).
   */
  carried: string[];
}

const OPTIONS = {
  thread: { type: "string", short: "t" },
  approve: { type: "boolean" },
  param: { type: "string", short: "p", multiple: true },
  reject: { type: "string" },
  edit: { type: "string" },
  resume: { type: "string" },
  json: { type: "boolean" },
  "no-input": { type: "boolean" },
  role: { type: "string" },
  user: { type: "string" },
  ...LIMIT_FLAG_OPTIONS,
  tools: { type: "boolean" },
  call: { type: "string" },
  "no-model": { type: "boolean" },
  multitask: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const USER_ID = /^[A-Za-z0-9._@-]{1,64}$/;

/** Parses the CLI's arguments (after `node main.ts`); throws `CliUsageError` with one line. */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: withBareReject(argv), options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message.split(". ")[0]!.replace(/\.$/, "") : String(error);
    throw new CliUsageError(`${message}. Run with --help for usage.`);
  }
  const { values, positionals } = parsed;
  const [command, ...words] = positionals;
  if (values.help) return { ...defaults(), command: "help" };
  if (command !== "ask" && command !== "chat") {
    throw new CliUsageError(
      command === undefined
        ? "Missing command: ask or chat. Run with --help for usage."
        : `Unknown command "${command}": use ask or chat.`,
    );
  }
  const question = words.join(" ").trim();
  const decisions: DecisionFlags = {
    approve: values.approve ?? false,
    params: values.param ?? [],
    reject: values.reject,
    edit: values.edit,
    resume: values.resume,
  };
  if (
    values.tools &&
    (question.length > 0 ||
      values.thread !== undefined ||
      hasDecisionFlags(decisions) ||
      values.call !== undefined ||
      values["no-model"])
  )
    throw new CliUsageError("--tools lists the tools and takes no question, --thread, --call or answer flags.");
  const { call, noModel } = readCallFlags({
    command,
    thread: values.thread,
    question,
    decisions,
    call: values.call,
    noModel: values["no-model"] ?? false,
  });
  return {
    command: values.tools ? "tools" : call ? "call" : command,
    question: question.length > 0 && !call ? question : undefined,
    thread: nonEmpty(values.thread, "--thread"),
    decisions,
    json: values.json ?? false,
    noInput: values["no-input"] ?? false,
    user: { id: userId(values.user), role: role(values.role) },
    limits: parseLimitFlags(values),
    ...(call ? { call } : {}),
    noModel,
    ...(values.multitask !== undefined ? { multitask: multitask(values.multitask) } : {}),
    carried: carriedFlags(values, noModel),
  };
}

/** Whether any flag answers a pause. */
export function hasDecisionFlags(flags: DecisionFlags): boolean {
  return (
    flags.approve ||
    flags.params.length > 0 ||
    flags.reject !== undefined ||
    flags.edit !== undefined ||
    flags.resume !== undefined
  );
}

/** `--reject` may stand alone (no reason): give it an empty value so parseArgs accepts it. */
function withBareReject(argv: readonly string[]): string[] {
  const result: string[] = [];
  for (const [index, arg] of argv.entries()) {
    const next = argv[index + 1];
    if (arg === "--reject" && (next === undefined || next.startsWith("-"))) result.push("--reject=");
    else result.push(arg);
  }
  return result;
}

function defaults(): Omit<CliArgs, "command"> {
  return {
    decisions: { approve: false, params: [] },
    json: false,
    noInput: false,
    user: { id: "local", role: "admin" },
    limits: {},
    noModel: false,
    carried: [],
  };
}

function nonEmpty(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim().length === 0) throw new CliUsageError(`${flag} needs a value.`);
  return value.trim();
}

function userId(value: string | undefined): string {
  if (value === undefined) return "local";
  if (!USER_ID.test(value)) throw new CliUsageError(`--user must be 1-64 letters, digits or . _ @ - (got "${value}").`);
  return value;
}

function multitask(value: string): MultitaskStrategy {
  const parsed = MultitaskStrategySchema.safeParse(value);
  if (!parsed.success)
    throw new CliUsageError(`--multitask must be one of reject, enqueue, interrupt (got "${value}").`);
  return parsed.data;
}

function role(value: string | undefined): string {
  if (value === undefined) return "admin";
  if (!(KNOWN_ROLES as readonly string[]).includes(value))
    throw new CliUsageError(`--role must be one of ${KNOWN_ROLES.join(", ")} (got "${value}").`);
  return value;
}
