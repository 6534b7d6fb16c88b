// Messages that wait for their turn on a busy or paused thread, drawn in the transcript as the
// user's bubbles with a marker ("queued · position 2", or "not sent: …" when their turn was
// refused) until their run starts. Runs take the waiting messages in order, an interrupt first.
import { h } from "../lib/dom.js";
import { t } from "../lib/i18n.js";

/** The waiting messages of the thread on the page, in the order they will run. */
export class QueuedMessages {
  /** Bubbles are added through `transcript` and moved within its root. */
  constructor(transcript) {
    this.transcript = transcript;
    this.entries = [];
    // Ids whose marker is gone: a thread view read before their run started must not add them again.
    this.done = new Set();
  }

  /** Whether a message the server queued still waits for its run to start (refused ones do not). */
  get pending() {
    return this.entries.some((entry) => entry.messageId !== undefined && !entry.failed && !entry.held);
  }

  /**
   * Whether the start of a queued message's run is still to be seen on the page. An interrupt
   * whose answer is on its way is not counted: its own stream shows its run.
   */
  get waiting() {
    return this.entries.some((entry) => entry.messageId !== undefined && !entry.failed);
  }

  /** Forgets every marker and draws the thread view's `queued` list at the end of the transcript. */
  draw(queued = []) {
    this.entries = [];
    this.done.clear();
    for (const item of queued) this.append(item);
  }

  /**
   * Marks a message's bubble as waiting: `first` for an interrupt, which runs before the others
   * (its answer may still be on its way); `messageId` and `position` once the server queued it.
   */
  add(bubble, { messageId, position, first = false } = {}) {
    let entry = this.entries.find((item) => item.bubble === bubble);
    if (!entry) {
      entry = { bubble, label: h("span", { class: "queued-state" }), failed: undefined, held: false };
      bubble.append(entry.label);
      if (first) this.entries.unshift(entry);
      else this.entries.push(entry);
    }
    entry.messageId = messageId;
    bubble.dataset.queued = "pending";
    entry.label.textContent =
      messageId === undefined ? t("interrupting") : position ? t("queuedPosition", { n: position }) : t("queued");
  }

  /** Drops a bubble's marker (its message was not sent after all). */
  remove(bubble) {
    const entry = this.entries.find((item) => item.bubble === bubble);
    if (entry) this.drop(entry);
  }

  /**
   * A run that is not a continuation starts: it takes the message first in line, whose bubble
   * moves to the end, where the run's block follows it, without its marker.
   */
  started() {
    const entry = this.entries.find((item) => !item.failed);
    if (!entry) return;
    this.transcript.root.append(entry.bubble);
    this.drop(entry);
  }

  /** Keeps the messages still waiting below everything else (after a new run's block). */
  keepBelow() {
    for (const entry of this.entries) if (!entry.failed) this.transcript.root.append(entry.bubble);
  }

  /**
   * Updates positions and refusals from the thread view; a message the thread now holds loses
   * its marker, and one the thread holds while nothing runs, or that the server listed and no
   * longer holds at all, is done with. Messages queued elsewhere (another tab) are added at the end.
   */
  update(view) {
    const held = new Set(view.messages.map((message) => message.id));
    const queued = new Map((view.queued ?? []).map((item) => [item.messageId, item]));
    for (const entry of [...this.entries]) {
      if (entry.messageId === undefined) continue;
      if (held.has(entry.messageId) || held.has(`${entry.messageId}-after-repair`)) {
        entry.held = true;
        entry.label.textContent = "";
        delete entry.bubble.dataset.queued;
        if (view.status !== "running") this.drop(entry);
        continue;
      }
      const item = queued.get(entry.messageId);
      if (item) this.mark(entry, item);
      // Listed before, now neither waiting nor in the thread: the server no longer holds it. (A
      // view read before the message was queued does not list it yet.)
      else if (entry.listed) this.drop(entry);
    }
    const known = new Set(this.entries.map((entry) => entry.messageId));
    for (const item of queued.values())
      if (!known.has(item.messageId) && !this.done.has(item.messageId)) this.append(item);
  }

  append(item) {
    const bubble = this.transcript.addUser(item.content);
    const entry = { bubble, label: h("span", { class: "queued-state" }), messageId: item.messageId, held: false };
    bubble.append(entry.label);
    this.entries.push(entry);
    this.mark(entry, item);
  }

  mark(entry, item) {
    entry.listed = true;
    entry.failed = item.failed;
    entry.bubble.dataset.queued = item.failed ? "failed" : "pending";
    entry.label.textContent = item.failed
      ? t("queuedFailed", { message: item.failed.message })
      : item.position
        ? t("queuedPosition", { n: item.position })
        : t("queued");
  }

  drop(entry) {
    if (entry.messageId !== undefined) this.done.add(entry.messageId);
    entry.label.remove();
    delete entry.bubble.dataset.queued;
    this.entries = this.entries.filter((item) => item !== entry);
  }
}
