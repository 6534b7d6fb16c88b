import { OpsPilotError } from "../contracts/errors.js";

/** The command line itself is wrong (unknown flag, missing question, flags that do not fit the pause). */
export class CliUsageError extends OpsPilotError {
  constructor(message: string) {
    super("usage", message);
    this.name = "CliUsageError";
  }
}

/** How a failure is reported: one line on stderr and the exit code. */
export interface ErrorReport {
  line: string;
  exitCode: number;
}

/**
 * One line per failure, never a stack trace: refusals and bad configuration exit 2 (the
 * request was wrong and nothing changed); anything unexpected exits 1.
 */
export function reportError(error: unknown): ErrorReport {
  if (error instanceof CliUsageError) return { line: `opspilot: ${error.message}`, exitCode: 2 };
  if (error instanceof OpsPilotError) return { line: `opspilot: ${error.message} [${error.code}]`, exitCode: 2 };
  const message = error instanceof Error ? error.message : String(error);
  return { line: `opspilot: unexpected error: ${firstLine(message)}`, exitCode: 1 };
}

/** A failure while opening the app: bad settings or a database that cannot be opened, a configuration problem either way (exit 2). */
export function reportStartupError(error: unknown): ErrorReport {
  if (error instanceof OpsPilotError) return reportError(error);
  const message = error instanceof Error ? error.message : String(error);
  return {
    line: `opspilot: cannot start (check OPSPILOT_DB, DATABASE_URL and the model settings): ${firstLine(message)}`,
    exitCode: 2,
  };
}

function firstLine(text: string): string {
  return text.split("\n", 1)[0]!.trim() || "unknown";
}
