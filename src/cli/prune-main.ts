import { loadDotEnv } from "../config/env.js";
import { runPrune } from "./prune.js";

loadDotEnv();

/** Entry point of `npm run prune -- --older-than 30d`. */
runPrune({ argv: process.argv.slice(2), stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `opspilot prune: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
