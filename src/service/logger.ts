/** Where the runtime reports failures that clients only see as a readable answer. */
export interface RuntimeLogger {
  error(message: string, error?: unknown): void;
}

/** Logs to stderr with the full error (server logs keep the details clients never see). */
export const consoleRuntimeLogger: RuntimeLogger = {
  error: (message, error) => console.error(`[opspilot] ${message}`, error ?? ""),
};
