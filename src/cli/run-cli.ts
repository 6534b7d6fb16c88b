import { openApp, type App } from "../app/assemble.js";
import { parseCliArgs, type CliArgs } from "./args.js";
import { runAsk } from "./ask.js";
import { runChat } from "./chat/chat.js";
import { reportError, reportStartupError } from "./cli-error.js";
import { createPrompter, type Prompter } from "./prompter.js";
import type { CliContext } from "./session.js";
import { SigintRouter, type SignalSource } from "./sigint.js";
import { colorsFor, createStyle, type ColorProbe } from "./output/style.js";
import { USAGE } from "./usage.js";
import { toolListing } from "./tools/list-tools.js";
import { runCall } from "./tools/call.js";
import { DirectCallModel } from "./tools/direct-call-model.js";

/** The process the CLI runs in; tests and fixtures pass their own streams and app. */
export interface CliProcess {
  /** Arguments after the script (`ask "question" --json`). */
  argv: readonly string[];
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & ColorProbe;
  stderr: NodeJS.WritableStream & ColorProbe;
  /** Builds the app; `openApp()` from the environment by default (SQLite, or PostgreSQL with DATABASE_URL). */
  createApp?: () => App | Promise<App>;
  /** Where Ctrl-C comes from; the process by default. */
  signals?: SignalSource;
  /** Quits at once (second Ctrl-C); `process.exit` by default. */
  exit?: (code: number) => void;
}

/** Runs the CLI to its end and returns the exit code; the app is always closed. */
export async function runCli(io: CliProcess): Promise<number> {
  const err = (line: string) => void io.stderr.write(line + "\n");
  let args: CliArgs;
  try {
    args = parseCliArgs(io.argv);
  } catch (error) {
    err(reportError(error).line);
    return 2;
  }
  if (args.command === "help") {
    io.stdout.write(USAGE + "\n");
    return 0;
  }
  let app: App;
  try {
    // One line per unexpected failure: a terminal is no place for stack traces.
    const logger = { error: (message: string) => void io.stderr.write(`opspilot: ${message}\n`) };
    // Without a model (--call, --no-model) the configured one is never built, so a model setting cannot stop it.
    const model = args.noModel ? new DirectCallModel() : undefined;
    app = await (io.createApp ?? (() => openApp({ logger, ...(model ? { model } : {}) })))();
  } catch (error) {
    err(reportStartupError(error).line);
    return 2;
  }
  if (args.command === "tools") {
    try {
      io.stdout.write(toolListing(app, args.json) + "\n");
      return 0;
    } finally {
      await app.close();
    }
  }
  const exit = io.exit ?? ((code: number) => process.exit(code));
  const sigint = new SigintRouter(() => exit(130));
  sigint.attach(io.signals ?? process);
  let prompter: Prompter | undefined;
  const ctx = contextFor(
    io,
    args,
    app,
    sigint,
    () => (prompter ??= promptOn(io, args, sigint)),
    () => exit(130),
  );
  try {
    if (args.command === "call") return await runCall(ctx, args, app.registry);
    return args.command === "ask" ? await runAsk(ctx, args) : await runChat(ctx, args);
  } catch (error) {
    const report = reportError(error);
    err(report.line);
    return report.exitCode;
  } finally {
    prompter?.close();
    sigint.detach();
    await app.close();
  }
}

function contextFor(
  io: CliProcess,
  args: CliArgs,
  app: App,
  sigint: SigintRouter,
  prompter: () => Prompter,
  forceExit: () => void,
): CliContext {
  return {
    runtime: app.runtime,
    user: args.user,
    runOptions: Object.keys(args.limits).length > 0 ? args.limits : undefined,
    ...(args.multitask ? { multitask: args.multitask } : {}),
    carried: args.carried,
    out: (line) => void io.stdout.write(line + "\n"),
    write: (text) => void io.stdout.write(text),
    streamAnswers: !args.json && io.stdout.isTTY === true,
    err: (line) => void io.stderr.write(line + "\n"),
    json: args.json,
    // A chat reads a pause's answers from its input like its questions, piped or typed.
    interactive: (io.stdin.isTTY === true || args.command === "chat") && !args.noInput && !args.json,
    style: createStyle(!args.json && colorsFor(io.stdout)),
    prompter,
    sigint,
    forceExit,
  };
}

/** Prompts go where the user sees them: stdout on a terminal, else stderr (stdout may be piped to a file). */
function promptOn(io: CliProcess, args: CliArgs, sigint: SigintRouter): Prompter {
  const output = !args.json && io.stdout.isTTY ? io.stdout : io.stderr.isTTY || args.json ? io.stderr : io.stdout;
  const terminal = io.stdin.isTTY === true && (output as ColorProbe).isTTY === true;
  return createPrompter({ input: io.stdin, output, terminal, onInterrupt: () => sigint.fire() });
}
