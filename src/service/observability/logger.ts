/** Where opspilot writes the failures that clients only see as a readable answer or a plain "Internal error". */
export interface Logger {
  /** Logs an unexpected failure with its details. */
  error(message: string, error?: unknown): void;
  /** Logs a recovery worth knowing (an MCP server back up); loggers that keep only failures leave it out. */
  info?(message: string): void;
  /** Logs a failure that explains itself in one line (a model call that failed for good); loggers may leave it out. */
  warn?(message: string): void;
}

/**
 * Logs failures to stderr with the full error (server logs keep the details clients never see),
 * unless `silent`, and recoveries at the `info` and `debug` levels.
 */
export function consoleLogger(level: "debug" | "info" | "warn" | "error" | "silent" = "info"): Logger {
  return {
    error: (message, error) => {
      if (level !== "silent") console.error(`[opspilot] ${message}`, error ?? "");
    },
    warn: (message) => {
      if (level !== "error" && level !== "silent") console.error(`[opspilot] ${message}`);
    },
    info: (message) => {
      if (level === "debug" || level === "info") console.error(`[opspilot] ${message}`);
    },
  };
}
