// A message for a thread that is running or waits for an answer: queued behind the run, or sent as
// an interrupt that stops it. The choice is the user's; a viewer may not interrupt.
import * as api from "../lib/api.js";
import { apiErrorText, t } from "../lib/i18n.js";
import { followNewest } from "../lib/scroll.js";

/** What the page offers for a message sent while its thread is busy. */
export class Multitask {
  /**
   * `page` the ThreadPage, `streams` its RunStreams; `canInterrupt()` whether the user may be
   * offered an interrupt; `onRefusal(error)` shows a refusal of the stream.
   */
  constructor({ page, streams, queue, transcript, choice, message, canInterrupt, onRefusal, showNotice }) {
    /** Off once the server refused this user an interrupt (a viewer). */
    this.mayInterrupt = true;
    Object.assign(this, { page, streams, queue, transcript, choice, message, canInterrupt, onRefusal, showNotice });
  }

  /** Asks what to do with a message for a thread that is `running` or `paused`. */
  offer(standing) {
    this.showNotice("");
    this.choice.offer({
      standing,
      canInterrupt: this.mayInterrupt && this.canInterrupt(),
      onChoose: (strategy) => this.choose(strategy),
    });
  }

  /** What the choice shows when the chosen strategy was refused; undefined once the message is sent. */
  async choose(strategy) {
    try {
      await this.send(strategy);
      return undefined;
    } catch (error) {
      if (!(error instanceof api.ApiError)) return { error: String(error) };
      if (error.status === 401) this.onRefusal(error);
      if (error.status === 403 && strategy === "interrupt") {
        this.mayInterrupt = false;
        return { error: t("interruptRefused"), withoutInterrupt: true };
      }
      return { error: apiErrorText(error.code) ?? error.message };
    }
  }

  /**
   * Sends the composer's message with `strategy` (`enqueue` or `interrupt`): a queued message shows
   * as queued and the page follows the thread until its run streams in; a streamed answer (the
   * thread was free, or the interrupt went through) streams after the events recorded before it
   * (a superseded pause's closing). Throws the refusal, with the text back in the composer.
   */
  async send(strategy) {
    const { page, queue, message: composer } = this;
    const message = composer.value.trim();
    if (!message) return;
    composer.value = "";
    const bubble = this.transcript.addUser(message);
    if (strategy === "interrupt") queue.add(bubble, { first: true });
    followNewest();
    page.reveal("newest");
    let posted;
    try {
      posted = await api.postMessage(page.threadId, message, strategy);
    } catch (error) {
      queue.remove(bubble);
      bubble.remove();
      if (!composer.value) composer.value = message;
      throw error;
    }
    if (posted.queued) queue.add(bubble, posted.queued);
    else if (strategy !== "interrupt") queue.remove(bubble);
    const threadId = page.threadId;
    const open = posted.stream
      ? async (onEvent) => {
          for (const event of await api.eventsAfter(threadId, page.conversation.lastSeq)) onEvent(event);
          await posted.stream(onEvent);
        }
      : async () => {};
    this.streams
      .run(open)
      .catch((error) => (error instanceof api.ApiError ? this.onRefusal(error) : this.showNotice(String(error))));
  }
}
