/** A log line's severity, as the digest groups it; `unknown` when neither the source nor the text says. */
export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "unknown";

/** The order a digest lists levels in: what breaks first. */
export const LEVEL_ORDER: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "unknown"];

const WORDS: Readonly<Record<string, LogLevel>> = {
  fatal: "fatal",
  panic: "fatal",
  crit: "fatal",
  critical: "fatal",
  emerg: "fatal",
  emergency: "fatal",
  alert: "fatal",
  error: "error",
  err: "error",
  severe: "error",
  warn: "warn",
  warning: "warn",
  info: "info",
  information: "info",
  notice: "info",
  debug: "debug",
  trace: "debug",
};

const KEYED = /\b(?:level|lvl|severity|loglevel)\\?"?\s*[=:]\s*\\?"?([A-Za-z]+)/i;
const BARE = /\b(FATAL|PANIC|CRITICAL|CRIT|ERROR|ERR|WARN|WARNING|INFO|NOTICE|DEBUG|TRACE)\b/;

/** A level name as the source wrote it (`ERROR`, `warning`, `crit`), or undefined when it names none. */
export function normalizeLevel(name: string | undefined): LogLevel | undefined {
  return name === undefined ? undefined : WORDS[name.trim().toLowerCase()];
}

/**
 * The line's level: the one its source gave (a `level` label, an ECS `log.level` field), else a
 * `level=…` / `"level":"…"` key in the text, else an upper-case level word (`ERROR`, `WARN`).
 */
export function levelOf(line: string, given?: string): LogLevel {
  return (
    normalizeLevel(given) ?? normalizeLevel(KEYED.exec(line)?.[1]) ?? normalizeLevel(BARE.exec(line)?.[1]) ?? "unknown"
  );
}
