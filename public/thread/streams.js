// The page's run streams, one at a time: a stream starts after the one in progress has ended, and a
// run the page is not streaming (a lost connection, another tab, queued messages) is followed from
// the recorded events.
import * as api from "../lib/api.js";
import { t } from "../lib/i18n.js";
import { expectRunEnd } from "./run-follower.js";

/** How often the page looks at a thread whose run goes on elsewhere or whose queued messages wait. */
const POLL_MS = 1000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The streams of the thread on `page` (a ThreadPage), with `queue` its queued messages. */
export class RunStreams {
  /** `setRunning(running)` shows whether a stream is open; `showNotice(text)` says what happened to it. */
  constructor({ page, queue, setRunning, showNotice }) {
    /** Whether a stream is open. */
    this.running = false;
    this.current = undefined;
    Object.assign(this, { page, queue, setRunning, showNotice });
  }

  /**
   * Runs `open(onEvent)` after the stream in progress has ended (a pause can be answered before its
   * run_finished arrives); when the connection drops before run_finished, catches up from the
   * recorded events.
   */
  run(open) {
    const previous = this.current ?? Promise.resolve();
    this.current = previous.catch(() => {}).then(() => this.follow(open));
    return this.current;
  }

  async follow(open) {
    this.running = true;
    this.setRunning(true);
    this.showNotice("");
    this.page.conversation = expectRunEnd(this.page.conversation);
    try {
      try {
        await open((event) => this.page.handle(event));
      } catch (error) {
        if (error instanceof api.ApiError && error.status < 500) throw error;
        this.showNotice(t("connectionLost"));
      }
      if (!this.page.conversation.finished) await this.catchUp();
      if (this.queue.waiting) await this.followQueue();
      this.showNotice("");
    } finally {
      this.running = false;
      this.setRunning(false);
    }
  }

  /**
   * Follows a run the page is not streaming: recorded events after the last one shown (and the
   * queued messages' places), until the thread stops running. Without any event shown yet,
   * redraws the history at the end.
   */
  async catchUp() {
    const page = this.page;
    for (;;) {
      const view = await api.getThread(page.threadId);
      const after = page.conversation.lastSeq;
      if (after > 0) for (const event of await api.eventsAfter(page.threadId, after)) page.handle(event);
      // Queued messages move up in line while the runs before them go.
      this.queue.update(view);
      if (view.status !== "running" || page.conversation.finished) {
        if (page.conversation.lastSeq === 0) await page.showThread(view);
        return;
      }
      await sleep(POLL_MS);
    }
  }

  /**
   * Follows the thread while messages shown as queued wait: their runs come in from the recorded
   * events, in order, and the markers follow the thread view. A pause in the way ends the wait
   * (the queue waits for the answer too); the last started run is followed to its end.
   */
  async followQueue() {
    const page = this.page;
    const threadId = page.threadId;
    while (this.queue.waiting && page.threadId === threadId) {
      // The view first: the events read after it hold the start of every run it shows.
      const view = await api.getThread(threadId);
      for (const event of await api.eventsAfter(threadId, page.conversation.lastSeq)) page.handle(event);
      this.queue.update(view);
      if (view.status === "interrupted") return;
      if (this.queue.waiting) await sleep(POLL_MS);
    }
    if (page.threadId === threadId && !page.conversation.finished) await this.catchUp();
  }
}
