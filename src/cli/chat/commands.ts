import { threadCommand } from "../pause/pause.js";

/** The command that continues a thread as a chat. */
const CHAT_COMMAND = "npm run chat --";

/** A chat line that is a command for the chat itself, never sent to the model. */
export type ChatCommand =
  { kind: "help" } | { kind: "thread" } | { kind: "new" } | { kind: "exit" } | { kind: "unknown"; word: string };

const COMMANDS: Record<string, ChatCommand> = {
  "/help": { kind: "help" },
  "/?": { kind: "help" },
  "/thread": { kind: "thread" },
  "/new": { kind: "new" },
  "/exit": { kind: "exit" },
  "/quit": { kind: "exit" },
  exit: { kind: "exit" },
  quit: { kind: "exit" },
};

/**
 * The command a chat line holds, or undefined for a question. A command is one word: a
 * line such as "/api/orders returns 500" (a path, or words after it) is a question.
 */
export function parseChatCommand(line: string): ChatCommand | undefined {
  const word = line.trim();
  const known = COMMANDS[word.toLowerCase()];
  if (known) return known;
  if (/^\/[A-Za-z][\w-]*$/.test(word)) return { kind: "unknown", word };
  return undefined;
}

/** What `/help` prints. */
export const CHAT_HELP = [
  "Commands:",
  "  /help     this list",
  "  /thread   the thread's id and how to come back to it",
  "  /new      start a new thread (the current one is kept; /thread first to note its id)",
  "  /exit     leave the chat (also /quit or Ctrl-D)",
  "Any other line is a question for the assistant.",
];

/** What `/thread` prints; the commands repeat `flags`, the chat's own (`--user`, `--role`, limits). */
export function threadLines(threadId: string, flags: readonly string[] = []): string[] {
  return [
    `thread: ${threadId}`,
    `resume it later with: ${threadCommand(threadId, flags, CHAT_COMMAND)}`,
    `or ask one question on it: ${threadCommand(threadId, flags)} "..."`,
  ];
}

/**
 * Why a chat that cannot answer a pause (`--no-input`, `--json`) ends there: the lines after
 * it are not read, and how to answer and go on.
 */
export function pauseEndsChatLine(threadId: string, flags: readonly string[], reason: "--no-input" | "--json"): string {
  return (
    `The chat ends at this pause: with ${reason} it reads no answers, so any lines after it were not read. ` +
    `Answer it (${threadCommand(threadId, flags)} asks in place on a terminal), then go on with: ${threadCommand(threadId, flags, CHAT_COMMAND)}`
  );
}

/** The hint for a `/word` that is not a command. */
export function unknownCommandLine(word: string): string {
  return `Unknown command ${word}: the commands are /help, /thread, /new and /exit. Nothing was sent.`;
}
