// The choice a message meets when its thread is running or waits for an answer: wait in the
// queue, interrupt and send it now, or cancel (the text stays in the composer). Real buttons in a
// labelled group; the focus moves to the first and back to the composer; Escape cancels.
import { h } from "../lib/dom.js";
import { t } from "../lib/i18n.js";

/** Draws the choice into `root` (hidden while no choice is offered); `composer` gets the focus back. */
export class SendChoice {
  constructor({ root, composer }) {
    this.root = root;
    this.composer = composer;
    this.offered = undefined;
    root.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        this.close();
      }
    });
    composer.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.isOpen) this.close();
    });
  }

  /** Whether a choice is shown. */
  get isOpen() {
    return !this.root.hidden;
  }

  /**
   * Offers the choice for a thread whose `standing` is `running` or `paused`, without "Interrupt
   * and send" unless `canInterrupt`. `onChoose(strategy)` sends the message; it resolves to
   * undefined once sent (the choice closes), or to `{ error, withoutInterrupt? }` to keep the
   * choice open with that refusal (and, for a role that may not interrupt, without that button).
   */
  offer({ standing, canInterrupt, onChoose }) {
    this.offered = { standing, canInterrupt, onChoose, error: "" };
    this.render();
    this.root.querySelector("button")?.focus();
  }

  /** Draws the offered choice again, in the current language. */
  render() {
    const offered = this.offered;
    if (!offered) return;
    const paused = offered.standing === "paused";
    const button = (strategy, label, hint, className) => {
      const hintId = `send-choice-${strategy}-hint`;
      return [
        h("button", {
          type: "button",
          class: className,
          dataset: { strategy },
          "aria-describedby": hintId,
          text: t(label),
          onclick: () => this.choose(strategy),
        }),
        h("span", { id: hintId, class: "visually-hidden", text: t(hint) }),
      ];
    };
    this.root.replaceChildren(
      h("p", {
        id: "send-choice-prompt",
        class: "send-choice-prompt",
        text: t(paused ? "choicePaused" : "choiceRunning"),
      }),
      h(
        "div",
        { class: "send-choice-actions" },
        button("enqueue", "waitInQueue", "waitInQueueHint", "primary"),
        offered.canInterrupt
          ? button("interrupt", "interruptAndSend", paused ? "interruptPausedHint" : "interruptRunningHint", "danger")
          : null,
        button("cancel", "cancelChoice", "cancelChoiceHint", ""),
      ),
      h("p", { class: "form-error", role: "alert", text: offered.error }),
    );
    this.root.setAttribute("aria-labelledby", "send-choice-prompt");
    this.root.hidden = false;
  }

  /** Sends by the chosen strategy, or cancels; a refusal stays in the choice. */
  async choose(strategy) {
    const offered = this.offered;
    if (!offered) return;
    if (strategy === "cancel") return this.close();
    const buttons = [...this.root.querySelectorAll("button")];
    for (const button of buttons) button.disabled = true;
    const refusal = await offered.onChoose(strategy);
    if (this.offered !== offered) return;
    if (!refusal) return this.close();
    offered.error = refusal.error;
    if (refusal.withoutInterrupt) offered.canInterrupt = false;
    this.render();
    this.root.querySelector("button")?.focus();
  }

  /** Hides the choice; the focus goes back to the composer unless `focus` is false. */
  close({ focus = true } = {}) {
    const wasOpen = this.isOpen;
    this.offered = undefined;
    this.root.hidden = true;
    this.root.replaceChildren();
    if (focus && wasOpen) this.composer.focus();
  }
}
