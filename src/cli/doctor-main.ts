import { loadDotEnv } from "../config/env.js";
import { runDoctor } from "./doctor/doctor.js";

loadDotEnv();

/** Entry point of `npm run doctor`. */
runDoctor({ argv: process.argv.slice(2), stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `opspilot doctor: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
