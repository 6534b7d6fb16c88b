import { loadDotEnv } from "../config/env.js";
import { runCli } from "./run-cli.js";

loadDotEnv();

/** Entry point of `npm run ask` and `npm run chat` (usage: src/cli/usage.ts or --help). */
runCli({ argv: process.argv.slice(2), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`opspilot: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
