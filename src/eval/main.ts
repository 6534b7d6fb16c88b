import { environmentVariables, loadDotEnv } from "../config/env.js";
import { runEvalCli } from "./cli.js";

loadDotEnv();

/** Entry point of `npm run eval` (usage: src/eval/args.ts or --help). */
runEvalCli({
  argv: process.argv.slice(2),
  variables: environmentVariables(),
  stdout: process.stdout,
  stderr: process.stderr,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `opspilot eval: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
