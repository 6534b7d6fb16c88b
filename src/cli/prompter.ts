import { createInterface } from "node:readline";

/** Asks the user one line at a time. */
export interface Prompter {
  /** Shows `question` and resolves with the answer; undefined at end of input or when cancelled (Ctrl-C). */
  ask(question: string): Promise<string | undefined>;
  /** Resolves the pending question with undefined. */
  cancel(): void;
  /** Releases the input stream. */
  close(): void;
}

/** Streams and hooks of a prompter. */
export interface PrompterOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** A TTY: line editing, echo by readline, Ctrl-C reported through `onInterrupt`. */
  terminal: boolean;
  /** Ctrl-C on a terminal in raw mode (the process gets no SIGINT then). */
  onInterrupt?: () => void;
}

/**
 * A line prompter over readline. Piped input is queued line by line so a script can feed
 * several answers; on a terminal, lines typed while nothing is asked (during a run) are dropped.
 */
export function createPrompter(options: PrompterOptions): Prompter {
  const { input, output, terminal } = options;
  const readline = createInterface({ input, output, terminal, historySize: terminal ? 100 : 0 });
  const queued: string[] = [];
  let waiting: ((answer: string | undefined) => void) | undefined;
  let ended = false;

  const settle = (answer: string | undefined) => {
    const resolve = waiting;
    waiting = undefined;
    resolve?.(answer);
  };
  readline.on("line", (line) => {
    if (waiting) {
      if (!terminal) output.write(line + "\n");
      settle(line);
    } else if (!terminal) queued.push(line);
  });
  readline.on("close", () => {
    ended = true;
    settle(undefined);
  });
  readline.on("SIGINT", () => (options.onInterrupt ? options.onInterrupt() : readline.close()));

  return {
    ask(question) {
      if (waiting) throw new Error("Prompter: a question is already pending");
      if (queued.length > 0) {
        const line = queued.shift()!;
        output.write(question + line + "\n");
        return Promise.resolve(line);
      }
      if (ended) return Promise.resolve(undefined);
      if (terminal) {
        readline.setPrompt(question);
        readline.prompt();
      } else output.write(question);
      return new Promise((resolve) => (waiting = resolve));
    },
    cancel() {
      if (!waiting) return;
      output.write("\n");
      settle(undefined);
    },
    close() {
      readline.close();
    },
  };
}

/** The same prompter, where `/exit` or `/quit` leaves the question as end of input does (a pause then keeps waiting). */
export function leavingOnExit(prompter: Prompter): Prompter {
  return {
    ask: async (question) => {
      const answer = await prompter.ask(question);
      return answer !== undefined && /^\/(exit|quit)$/i.test(answer.trim()) ? undefined : answer;
    },
    cancel: () => prompter.cancel(),
    close: () => prompter.close(),
  };
}
