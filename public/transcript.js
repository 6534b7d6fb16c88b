// The chat column: messages, and for each run its steps — one per model turn, numbered as the
// server counts them — with the turn's text and its tool-call cards.
import { formatArgs, formatDuration, formatValue, h, readableSummary } from "./dom.js";
import { untrustedBadge } from "./egress.js";
import { errorCodeText, stopReasonText, t } from "./i18n.js";
import { renderMarkdown } from "./markdown.js";

/** One change a person's answer made to a call's args, as a line: `environment: prod → staging`. */
export function changeText({ field, before, after }) {
  if (before === undefined) return `${field}: ${formatValue(after)}`;
  if (after === undefined) return `${field}: ${formatValue(before)} → ∅`;
  return `${field}: ${formatValue(before)} → ${formatValue(after)}`;
}

/** Renders a thread into `root`, from its recorded events, from live events, or from its messages. */
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
      run = { element, status, openStep: undefined, steps: new Map(), unnumbered: 0 };
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

  /**
   * The box of a model turn, created on first use: numbered `n` when the event says which
   * turn it is, else (events recorded before turns were numbered) the next box of the run.
   */
  step(runId, n) {
    const run = this.run(runId);
    const key = n ?? `legacy-${++run.unnumbered}`;
    let step = run.steps.get(key);
    if (!step) {
      const calls = h("div", { class: "calls" });
      const label = t("step", { n: n ?? run.steps.size + 1 });
      const element = h(
        "div",
        { class: "step", dataset: { step: String(n ?? "") } },
        h("span", { class: "step-label", text: label }),
        calls,
      );
      run.element.append(element);
      step = { element, calls, bubble: undefined, streaming: undefined };
      run.steps.set(key, step);
    }
    return step;
  }

  /** The step new calls go to: the turn the event names, or the one still open. */
  stepFor(runId, model) {
    const run = this.run(runId);
    if (model?.step !== undefined) run.openStep = this.step(runId, model.step);
    else if (!run.openStep) run.openStep = this.step(runId, undefined);
    return run.openStep;
  }

  /** Appends a fragment of the answer a model turn is writing, in that turn's box (plain text while it streams). */
  delta(runId, n, text) {
    const step = this.step(runId, n);
    if (step.bubble) return;
    if (!step.streaming) {
      const paragraph = h("p", { class: "streamed" });
      step.streaming = h(
        "div",
        { class: "bubble assistant streaming", "aria-busy": "true" },
        h("span", { class: "who", text: t("assistant") }),
        paragraph,
      );
      step.element.insertBefore(step.streaming, step.calls);
    }
    step.streaming.querySelector(".streamed").append(text);
  }

  /** Removes the text a turn streamed but never recorded (reasoning before its tool calls, or a cancelled turn). */
  dropStreaming(runId, n) {
    const run = this.runs.get(runId);
    for (const [key, step] of run?.steps ?? []) {
      if (n !== undefined && key !== n) continue;
      step.streaming?.remove();
      step.streaming = undefined;
    }
  }

  /** Adds a proposed call to its turn's box; calls proposed together sit side by side. */
  toolCall(runId, { callId, tool, args, model }) {
    const known = this.cards.get(callId);
    if (known) return known;
    // Text streamed by this turn that did not become a message was the model thinking aloud.
    if (model?.step !== undefined && !this.step(runId, model.step).bubble) this.dropStreaming(runId, model.step);
    const step = this.stepFor(runId, model);
    const state = h("span", { class: "call-state", text: t("proposed") });
    const card = h(
      "article",
      { class: "call", dataset: { callId, state: "proposed" } },
      h("header", {}, h("strong", { class: "tool", text: tool }), state),
      h("code", { class: "args", text: formatArgs(args) }),
      h("p", { class: "decision" }),
      h("p", { class: "summary" }),
    );
    step.calls.append(card);
    this.cards.set(callId, card);
    return card;
  }

  /** Fills a call's card with its result: the args that ran, who answered its pause, and the result. */
  toolResult(runId, result) {
    this.closeStep(runId);
    const card =
      this.cards.get(result.callId) ?? this.toolCall(runId, { callId: result.callId, tool: result.tool, args: {} });
    card.dataset.state = result.ok ? "ok" : "error";
    if (!result.ok) card.dataset.errorCode = result.errorCode ?? "internal";
    const outcome = result.ok ? t("ok") : errorCodeText(result.errorCode ?? "internal");
    card.querySelector(".call-state").textContent = `${outcome} · ${formatDuration(result.durationMs)}`;
    if (result.args) card.querySelector(".args").textContent = formatArgs(result.args);
    // Content from a tool that is not trusted: the thread's egress calls wait for a person from here on.
    if (result.untrusted && !card.querySelector(".untrusted-badge"))
      card.querySelector("header").insertBefore(untrustedBadge(), card.querySelector(".call-state"));
    const decision = result.decision;
    const decisionLine = card.querySelector(".decision");
    const summary = card.querySelector(".summary");
    if (decision?.action === "reject") {
      // The page's own words, with the person's reason as they gave it.
      decisionLine.textContent = "";
      summary.textContent = decision.message
        ? t("rejectedWithReason", { user: decision.by, reason: decision.message })
        : t("rejectedNoReason", { user: decision.by });
    } else {
      if (decision) {
        // Four eyes: everyone whose approval counted, the last of them the one who answered.
        const user = decision.approvers?.length > 1 ? decision.approvers.join(", ") : decision.by;
        const who = t(decision.action === "edit" ? "editedBy" : "approvedBy", { user });
        decisionLine.textContent = [...(decision.changes ?? []).map(changeText), who].join(" · ");
        card.dataset.edited = String(decision.action === "edit");
      }
      summary.textContent = readableSummary(result.summary);
      if (summary.textContent !== (result.summary ?? "")) summary.title = result.summary;
    }
    if (result.ok && this.loadResult && !card.querySelector("details.result")) card.append(this.resultDetails(result));
  }

  /** A keyboard-reachable disclosure that fetches the call's full, masked result once, pretty-printed, with Copy. */
  resultDetails({ callId }) {
    const body = h("div", { class: "result-body" });
    const details = h("details", { class: "result" }, h("summary", { text: t("fullResult") }), body);
    let loaded = false;
    details.addEventListener("toggle", async () => {
      if (!details.open || loaded) return;
      loaded = true;
      body.replaceChildren(h("p", { class: "muted", text: t("loadingResult") }));
      try {
        const result = await this.loadResult(callId);
        if (result === undefined) return body.replaceChildren(h("p", { class: "muted", text: t("noStoredResult") }));
        const text = typeof result === "string" ? result : JSON.stringify(result, null, 2);
        const copyState = h("span", { class: "copy-state", role: "status" });
        const copy = h("button", {
          type: "button",
          class: "copy",
          text: t("copy"),
          onclick: () => copyText(text, pre).then((ok) => (copyState.textContent = t(ok ? "copied" : "copyFailed"))),
        });
        const pre = h("pre", { class: "result-text", tabindex: "0", text });
        body.replaceChildren(h("div", { class: "result-actions" }, copy, copyState), pre);
      } catch (error) {
        loaded = false;
        body.replaceChildren(h("p", { class: "form-error", text: error.message }));
      }
    });
    return details;
  }

  /** Appends a message to the run: a model turn's text goes in that turn's box, Markdown rendered. */
  assistant(runId, content, model) {
    this.closeStep(runId);
    if (model?.step !== undefined) this.dropStreaming(runId, model.step);
    if (!content) return;
    const bubble = h(
      "div",
      { class: "bubble assistant" },
      h("span", { class: "who", text: t("assistant") }),
      h("div", { class: "markdown" }, renderMarkdown(content)),
    );
    if (model?.step !== undefined) {
      const step = this.step(runId, model.step);
      step.bubble = bubble;
      step.element.insertBefore(bubble, step.calls);
      // Calls of the same turn follow the text into this box.
      this.run(runId).openStep = step;
    } else {
      this.run(runId).element.append(bubble);
    }
  }

  /** Marks the calls of a pause as waiting (risky ones as risky) and returns the place for its form. */
  paused(runId, interrupt) {
    this.closeStep(runId);
    this.dropStreaming(runId);
    for (const call of interrupt.calls) {
      const card = this.cards.get(call.callId) ?? this.toolCall(runId, call);
      card.dataset.state = "waiting";
      card.dataset.risk = call.risk;
      card.querySelector(".call-state").textContent =
        call.risk === "high" ? `${t("highRisk")} · ${t("waiting")}` : t("waiting");
    }
    // A pause asked again (its answer was refused) keeps one place.
    this.slots.get(interrupt.interruptId)?.remove();
    const slot = h("div", { class: "pause-slot", dataset: { interruptId: interrupt.interruptId } });
    this.run(runId).element.append(slot);
    this.slots.set(interrupt.interruptId, slot);
    return slot;
  }

  /** Shows how a run ended; counts the turns shown when the events numbered them. */
  finished(runId, { stopReason, steps, durationMs, tokens, costUsd }) {
    const run = this.run(runId);
    this.closeStep(runId);
    this.dropStreaming(runId);
    run.element.dataset.state = stopReason;
    const numbered = [...run.steps.keys()].filter((key) => typeof key === "number").length;
    const n = numbered > 0 ? numbered : steps;
    const parts = [
      t("finished", {
        reason: stopReasonText(stopReason),
        steps: t("stepCount", { n }),
        duration: formatDuration(durationMs),
      }),
    ];
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
   * Renders a thread's history from its messages (`GET /api/threads/:id`), for threads whose
   * events were not recorded: each user message opens a block, and the calls, results and
   * answers after it fill that block. Returns the pause slot.
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

/** Copies text to the clipboard; falls back to selecting it for the browser's copy command. */
async function copyText(text, element) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(element);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
}
