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

/** What `/thread` prints. */
export function threadLines(threadId: string): string[] {
  return [
    `thread: ${threadId}`,
    `resume it later with: npm run chat -- --thread ${threadId}`,
    `or ask one question on it: npm run ask -- --thread ${threadId} "..."`,
  ];
}

/** The hint for a `/word` that is not a command. */
export function unknownCommandLine(word: string): string {
  return `Unknown command ${word}: the commands are /help, /thread, /new and /exit. Nothing was sent.`;
}
