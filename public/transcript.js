// The chat column: messages, and for each run a step bar of tool-call cards.
import { formatArgs, formatDuration, h } from "./dom.js";
import { errorCodeText, stopReasonText, t } from "./i18n.js";

/** Renders a thread into `root`, from its history and from live events. */
export class Transcript {
  constructor(root) {
    this.root = root;
    this.clear();
  }

  /** Empties the column. */
  clear() {
    this.root.replaceChildren();
    this.runs = new Map();
    this.cards = new Map();
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
      const status = h("p", { class: "run-status", role: "status" });
      const element = h("section", { class: "run", dataset: { runId } }, status);
      this.root.append(element);
      run = { element, status, openStep: undefined, steps: 0 };
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

  /** Adds a proposed call; calls proposed together share one step, side by side. */
  toolCall(runId, { callId, tool, args }) {
    const known = this.cards.get(callId);
    if (known) return known;
    const run = this.run(runId);
    if (!run.openStep) {
      run.steps += 1;
      const calls = h("div", { class: "calls" });
      run.element.append(
        h("div", { class: "step" }, h("span", { class: "step-label", text: t("step", { n: run.steps }) }), calls),
      );
      run.openStep = calls;
    }
    const state = h("span", { class: "call-state", text: t("proposed") });
    const card = h(
      "article",
      { class: "call", dataset: { callId, state: "proposed" } },
      h("header", {}, h("strong", { class: "tool", text: tool }), state),
      h("code", { class: "args", text: formatArgs(args) }),
      h("p", { class: "summary" }),
    );
    run.openStep.append(card);
    this.cards.set(callId, card);
    return card;
  }

  /** Fills a call's card with its result. */
  toolResult(runId, result) {
    this.closeStep(runId);
    const card =
      this.cards.get(result.callId) ?? this.toolCall(runId, { callId: result.callId, tool: result.tool, args: {} });
    card.dataset.state = result.ok ? "ok" : "error";
    if (!result.ok) card.dataset.errorCode = result.errorCode ?? "internal";
    const outcome = result.ok ? t("ok") : errorCodeText(result.errorCode ?? "internal");
    card.querySelector(".call-state").textContent = `${outcome} · ${formatDuration(result.durationMs)}`;
    card.querySelector(".summary").textContent = result.summary ?? "";
  }

  /** Appends an assistant message to the run. */
  assistant(runId, content) {
    this.closeStep(runId);
    if (!content) return;
    const run = this.run(runId);
    run.element.append(
      h(
        "div",
        { class: "bubble assistant" },
        h("span", { class: "who", text: t("assistant") }),
        h("p", { text: content }),
      ),
    );
  }

  /** Marks the calls of a pause as waiting and returns the place for its form. */
  paused(runId, interrupt) {
    this.closeStep(runId);
    for (const call of interrupt.calls) {
      const card = this.cards.get(call.callId) ?? this.toolCall(runId, call);
      card.dataset.state = "waiting";
      card.querySelector(".call-state").textContent = t("waiting");
    }
    const slot = h("div", { class: "pause-slot" });
    this.run(runId).element.append(slot);
    return slot;
  }

  /** Shows how a run ended. */
  finished(runId, { stopReason, steps, durationMs, tokens, costUsd }) {
    const run = this.run(runId);
    this.closeStep(runId);
    run.element.dataset.state = stopReason;
    const parts = [t("finished", { reason: stopReasonText(stopReason), steps, duration: formatDuration(durationMs) })];
    // Events recorded before runs carried their spending have neither figure.
    if (typeof tokens === "number") parts.push(t("spentTokens", { tokens: tokens.toLocaleString("en-US") }));
    if (typeof costUsd === "number" && costUsd > 0)
      parts.push(`$${costUsd >= 1 ? costUsd.toFixed(2) : costUsd.toFixed(4)}`);
    run.status.textContent = parts.join(" · ");
  }

  closeStep(runId) {
    const run = this.runs.get(runId);
    if (run) run.openStep = undefined;
  }

  /**
   * Renders a thread's history (`GET /api/threads/:id`): each user message opens a block,
   * and the calls, results and answers after it fill that block. Returns the pause slot.
   */
  renderHistory(view) {
    this.clear();
    if (view.messages.length === 0) this.showEmpty();
    let block = 0;
    for (const message of view.messages) {
      if (message.role === "user") {
        this.addUser(message.content);
        block += 1;
        this.run(`history-${block}`).status.hidden = true;
      } else if (message.role === "assistant") {
        const runId = `history-${block}`;
        this.assistant(runId, message.content);
        for (const call of message.toolCalls) this.toolCall(runId, call);
      } else {
        this.toolResult(`history-${block}`, message);
      }
    }
    return view.interrupt ? this.paused(`history-${block}`, view.interrupt) : undefined;
  }
}
