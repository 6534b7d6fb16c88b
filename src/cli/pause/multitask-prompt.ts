import { ThreadPausedError, type OpsPilotError } from "../../contracts/errors.js";
import type { Prompter } from "../prompter.js";
import type { Style } from "../output/style.js";

/** What the user may choose when the thread cannot take the message now. */
export type BusyChoice = "enqueue" | "interrupt";

/** Where the choice is asked. */
export interface BusyPromptIo {
  prompter: Prompter;
  /** Writes one line for the user. */
  write(line: string): void;
  style: Style;
}

const CHOICES: Record<string, BusyChoice | "cancel"> = {
  w: "enqueue",
  wait: "enqueue",
  i: "interrupt",
  interrupt: "interrupt",
  c: "cancel",
  cancel: "cancel",
};

/**
 * Asks what to do with a message its thread refused (running, or waiting for an answer): wait in
 * the queue, interrupt, or cancel. Undefined for cancel, end of input or Ctrl-C.
 */
export async function promptBusyChoice(refusal: OpsPilotError, io: BusyPromptIo): Promise<BusyChoice | undefined> {
  const { style } = io;
  const paused = refusal instanceof ThreadPausedError;
  io.write(
    style.yellow(paused ? "The thread is waiting for an answer to a pause." : "The thread is running another run."),
  );
  io.write(
    paused
      ? `  ${style.bold("w")} wait in queue (runs once the pause is answered)   ${style.bold("i")} interrupt (reject the waiting calls) and send   ${style.bold("c")} cancel`
      : `  ${style.bold("w")} wait in queue (runs after this run)   ${style.bold("i")} interrupt (stop the run) and send   ${style.bold("c")} cancel`,
  );
  for (;;) {
    const answer = await io.prompter.ask("send [w/i/c] › ");
    if (answer === undefined) return undefined;
    const choice = CHOICES[answer.trim().toLowerCase()];
    if (choice === "cancel") return undefined;
    if (choice) return choice;
    io.write(style.red(`Answer w (wait), i (interrupt) or c (cancel); got "${answer.trim()}".`));
  }
}
