// The chat column's elements: messages, and for each run its steps — one per model turn, numbered as
// the server counts them — with the turn's text, its tool-call cards and the places of its pauses.
// Where each thing goes is the run follower's decision (conversation-view.js); this file draws it.
import { callCard } from "./call-card.js";
import { formatDuration, h } from "../lib/dom.js";
import { stopReasonText, t } from "../lib/i18n.js";
import { renderMarkdown } from "../lib/markdown.js";

/** The transcript's elements in `root`: runs, steps, call cards and pause places, each found by its id. */
export class Transcript {
  /** `loadResult(callId)` fetches a call's full result when its card is expanded. */
  constructor(root, { loadResult } = {}) {
    this.root = root;
    this.loadResult = loadResult;
    this.clear();
  }

  /** Empties the column. */
  clear() {
    this.root.replaceChildren();
    this.runs = new Map();
    this.cards = new Map();
    this.slots = new Map();
  }

  /** Shows the hint of an empty thread. */
  showEmpty() {
    this.root.append(h("p", { class: "empty", text: t("emptyThread") }));
  }

  /** Appends the user's message and returns its bubble. */
  addUser(content) {
    this.root.querySelector(".empty")?.remove();
    const bubble = h(
      "div",
      { class: "bubble user" },
      h("span", { class: "who", text: t("you") }),
      h("p", { text: content }),
    );
    this.root.append(bubble);
    return bubble;
  }

  /** The block of a run, created on first use. */
  run(runId) {
    let run = this.runs.get(runId);
    if (!run) {
      const status = h("p", { class: "run-status" });
      const element = h("section", { class: "run", dataset: { runId } }, status);
      this.root.append(element);
      run = { element, status, steps: new Map() };
      this.runs.set(runId, run);
    }
    return run;
  }

  /** Marks a run as running. */
  started(runId) {
    const run = this.run(runId);
    run.element.dataset.state = "running";
    run.status.textContent = t("running");
  }

  /** Appends the box of a model turn: `n` its number (undefined for turns recorded before they were numbered). */
  addStep(runId, key, n, label) {
    const run = this.run(runId);
    const calls = h("div", { class: "calls" });
    const element = h(
      "div",
      { class: "step", dataset: { step: String(n ?? "") } },
      h("span", { class: "step-label", text: t("step", { n: label }) }),
      calls,
    );
    run.element.append(element);
    run.steps.set(key, { element, calls, streaming: undefined });
  }

  /** Appends a fragment of the answer a turn is writing, in that turn's box (plain text while it streams). */
  stream(runId, key, text) {
    const step = this.run(runId).steps.get(key);
    if (!step.streaming) {
      step.streaming = h(
        "div",
        { class: "bubble assistant streaming", "aria-busy": "true" },
        h("span", { class: "who", text: t("assistant") }),
        h("p", { class: "streamed" }),
      );
      step.element.insertBefore(step.streaming, step.calls);
    }
    step.streaming.querySelector(".streamed").append(text);
  }

  /** Removes the text a turn streamed but never recorded (reasoning before its tool calls, or a cancelled turn). */
  dropStreaming(runId, key) {
    const step = this.run(runId).steps.get(key);
    step.streaming?.remove();
    step.streaming = undefined;
  }

  /** Puts a turn's message, Markdown rendered, in its box (`key`), or at the end of the run without one. */
  addMessage(runId, key, content) {
    const bubble = h(
      "div",
      { class: "bubble assistant" },
      h("span", { class: "who", text: t("assistant") }),
      h("div", { class: "markdown" }, renderMarkdown(content)),
    );
    const run = this.run(runId);
    const step = key === undefined ? undefined : run.steps.get(key);
    if (step) step.element.insertBefore(bubble, step.calls);
    else run.element.append(bubble);
  }

  /** Adds a proposed call's card to its turn's box; calls proposed together sit side by side. */
  addCard(runId, key, call) {
    const card = callCard(call);
    this.run(runId).steps.get(key).calls.append(card);
    this.cards.set(call.callId, card);
    return card;
  }

  /** Appends the place for a pause's form to its run; a pause asked again moves there from its earlier place. */
  addSlot(runId, interruptId) {
    this.slots.get(interruptId)?.remove();
    const slot = h("div", { class: "pause-slot", dataset: { interruptId } });
    this.run(runId).element.append(slot);
    this.slots.set(interruptId, slot);
    return slot;
  }

  /** Shows how a run ended: `numbered` the turns the events numbered, else the server's count. */
  finished(runId, { stopReason, steps, durationMs, tokens, costUsd }, numbered) {
    const run = this.run(runId);
    run.element.dataset.state = stopReason;
    const parts = [
      t("finished", {
        reason: stopReasonText(stopReason),
        steps: t("stepCount", { n: numbered > 0 ? numbered : steps }),
        duration: formatDuration(durationMs),
      }),
    ];
    // Events recorded before runs carried their spending have neither figure.
    if (typeof tokens === "number") parts.push(t("spentTokens", { tokens: tokens.toLocaleString("en-US") }));
    if (typeof costUsd === "number" && costUsd > 0)
      parts.push(`$${costUsd >= 1 ? costUsd.toFixed(2) : costUsd.toFixed(4)}`);
    run.status.textContent = parts.join(" · ");
  }
}
