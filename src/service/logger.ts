/** Where opspilot writes the failures that clients only see as a readable answer or a plain "Internal error". */
export interface Logger {
  /** Logs an unexpected failure with its details. */
  error(message: string, error?: unknown): void;
}

/** Logs failures to stderr with the full error (server logs keep the details clients never see), unless `silent`. */
export function consoleLogger(level: "debug" | "info" | "warn" | "error" | "silent" = "info"): Logger {
  return {
    error: (message, error) => {
      if (level !== "silent") console.error(`[opspilot] ${message}`, error ?? "");
    },
  };
}
