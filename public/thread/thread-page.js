// The thread on the page: the run follower's state, the transcript drawn from it, the queued
// messages' places and the form of the pause that waits for an answer.
import { putThreadIdInAddress } from "../lib/address.js";
import * as api from "../lib/api.js";
import { drawChanges, drawHistory } from "./conversation-view.js";
import { recordedAnswerNote } from "./pause-notes.js";
import { renderPause } from "./pause.js";
import { follow, resultOf, startConversation, withPendingPause } from "./run-follower.js";
import { reveal } from "../lib/scroll.js";

/** The conversation of one thread, followed from its events and drawn in the transcript. */
export class ThreadPage {
  /**
   * `onAnswer(slot, interrupt, resume, refuse)` sends the answer a pause's form collected;
   * `onPause()` and `onRunEnd()` say that a pause showed or a run ended (the lists change).
   */
  constructor({ threadId, transcript, queue, log, onAnswer, onPause, onRunEnd }) {
    /** The run follower's state: replaced, never changed. */
    this.conversation = startConversation(threadId);
    /** The pause whose form is on the page: its results close the form when the pause ends elsewhere. */
    this.livePause = undefined;
    Object.assign(this, { transcript, queue, log, onAnswer, onPause, onRunEnd });
  }

  /** The thread on the page; undefined before the first message of a new conversation. */
  get threadId() {
    return this.conversation.threadId;
  }

  /** Follows another thread (undefined: a new conversation), with its id in the address. */
  setThreadId(threadId) {
    this.conversation = startConversation(threadId);
    putThreadIdInAddress(threadId);
  }

  /** Brings the newest step into view (`"newest"`: even when the reader scrolled up). */
  reveal(target) {
    reveal(this.log, target);
  }

  /** Takes in one streamed event and draws what it changed; recorded events count once each. */
  handle(event) {
    const before = this.conversation;
    const after = follow(before, event);
    this.conversation = after;
    const applied = after.applied;
    if (!applied) return;
    // A new run takes the message first in line; a continuation takes none.
    const takesMessage = applied.type === "run_started" && !applied.resumed;
    if (takesMessage) this.queue.started();
    drawChanges(this.transcript, before, after);
    if (applied.type === "loop_interrupt") this.showPause(this.transcript.slots.get(applied.interruptId), applied);
    if (applied.type === "run_finished") this.onRunEnd();
    if (takesMessage) this.queue.keepBelow();
    this.closeEndedPause(applied);
    this.reveal();
  }

  /**
   * Closes the pause form once its pause ended without this form's answer (a new message
   * superseded it, another tab answered it): the note says how each call was answered.
   */
  closeEndedPause(event) {
    const pause = this.livePause;
    if (!pause || event.type !== "run_finished" || event.stopReason === "interrupted") return;
    this.livePause = undefined;
    if (!pause.slot.querySelector("form.pause")) return;
    const note = recordedAnswerNote(pause.interrupt, (callId) => resultOf(this.conversation, callId));
    if (note) pause.slot.replaceChildren(note);
    else pause.slot.remove();
  }

  /** Shows the form of a pause that waits for an answer in its place. */
  showPause(slot, interrupt) {
    this.livePause = { slot, interrupt };
    this.onPause();
    renderPause(slot, interrupt, (resume, refuse) => this.onAnswer(slot, interrupt, resume, refuse));
    this.reveal();
  }

  /**
   * Draws the thread from its recorded events — runs with their steps, statuses and answered
   * pauses — with the user's messages from the thread view before the runs they started; a
   * thread without recorded events is drawn from its messages. Ends at the pending pause, if any.
   */
  async showThread(view) {
    const events = await api.eventsAfter(this.threadId, 0);
    this.livePause = undefined;
    const empty = startConversation(this.threadId);
    if (events.length === 0) {
      this.conversation = drawHistory(this.transcript, view, empty);
      this.queue.draw(view.queued);
      if (view.interrupt) this.showPause(this.transcript.slots.get(view.interrupt.interruptId), view.interrupt);
      return this.reveal("newest");
    }
    this.transcript.clear();
    const users = view.messages.filter((message) => message.role === "user");
    const started = new Set();
    let state = empty;
    for (const event of events) {
      // Each run that is not a continuation was started by the next user message.
      if (event.type === "run_started" && !event.resumed && !started.has(event.runId) && users.length > 0)
        this.transcript.addUser(users.shift().content);
      started.add(event.runId);
      const next = follow(state, event);
      drawChanges(this.transcript, state, next);
      state = next;
    }
    for (const message of users) this.transcript.addUser(message.content);
    this.queue.draw(view.queued);
    const pending = view.interrupt;
    for (const { interrupt } of state.pauses) {
      const slot = this.transcript.slots.get(interrupt.interruptId);
      if (!slot?.isConnected) continue;
      if (pending && interrupt.interruptId === pending.interruptId) continue;
      const note = recordedAnswerNote(interrupt, (callId) => resultOf(state, callId));
      if (note) slot.replaceChildren(note);
      else slot.remove();
    }
    const placed = withPendingPause(state, pending);
    drawChanges(this.transcript, state, placed);
    this.conversation = placed;
    if (pending) this.showPause(this.transcript.slots.get(pending.interruptId), pending);
    this.reveal("newest");
  }
}
