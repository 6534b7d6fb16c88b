import { loadDotEnv } from "../config/env.js";
import { parseCliArgs } from "./args.js";
import { USAGE } from "./usage.js";

loadDotEnv();

const argv = process.argv.slice(2);

/** `--help` answers before the app's modules (graph, models, storage) are loaded; bad arguments are reported by `runCli`. */
function asksForHelp(): boolean {
  try {
    return parseCliArgs(argv).command === "help";
  } catch {
    return false;
  }
}

/** Entry point of `npm run ask` and `npm run chat` (usage: src/cli/usage.ts or --help). */
async function main(): Promise<number> {
  if (asksForHelp()) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  const { runCli } = await import("./run-cli.js");
  return runCli({ argv, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`opspilot: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
