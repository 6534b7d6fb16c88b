// A tool call's card: the tool and its args when proposed, then its state, who answered its pause,
// its result's summary, and a disclosure with the full result.
import { formatArgs, formatDuration, formatValue, h, readableSummary } from "../lib/dom.js";
import { untrustedBadge } from "./egress.js";
import { errorCodeText, t } from "../lib/i18n.js";

/** One change a person's answer made to a call's args, as a line: `environment: prod → staging`. */
export function changeText({ field, before, after }) {
  if (before === undefined) return `${field}: ${formatValue(after)}`;
  if (after === undefined) return `${field}: ${formatValue(before)} → ∅`;
  return `${field}: ${formatValue(before)} → ${formatValue(after)}`;
}

/** A proposed call's card. */
export function callCard({ callId, tool, args }) {
  return h(
    "article",
    { class: "call", dataset: { callId, state: "proposed" } },
    h(
      "header",
      {},
      h("strong", { class: "tool", text: tool }),
      h("span", { class: "call-state", text: t("proposed") }),
    ),
    h("code", { class: "args", text: formatArgs(args) }),
    h("p", { class: "decision" }),
    h("p", { class: "summary" }),
  );
}

/** Marks a card as waiting in a pause (a risky call as risky). */
export function markWaiting(card, risk) {
  card.dataset.state = "waiting";
  card.dataset.risk = risk;
  card.querySelector(".call-state").textContent = risk === "high" ? `${t("highRisk")} · ${t("waiting")}` : t("waiting");
}

/**
 * Fills a call's card with its result: the args that ran, who answered its pause, and the result;
 * `loadResult(callId)`, when given, fetches the full result for the disclosure.
 */
export function fillResult(card, result, loadResult) {
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
      // A pause that only asked for fields was filled, not approved.
      const label = decision.action === "edit" ? "editedBy" : decision.kind === "params" ? "filledBy" : "approvedBy";
      const who = t(label, { user });
      decisionLine.textContent = [...(decision.changes ?? []).map(changeText), who].join(" · ");
      card.dataset.edited = String(decision.action === "edit");
    }
    summary.textContent = readableSummary(result.summary);
    if (summary.textContent !== (result.summary ?? "")) summary.title = result.summary;
  }
  if (result.ok && loadResult && !card.querySelector("details.result"))
    card.append(resultDetails(result.callId, loadResult));
}

/** A keyboard-reachable disclosure that fetches the call's full, masked result once, pretty-printed, with Copy. */
function resultDetails(callId, loadResult) {
  const body = h("div", { class: "result-body" });
  const details = h("details", { class: "result" }, h("summary", { text: t("fullResult") }), body);
  let loaded = false;
  details.addEventListener("toggle", async () => {
    if (!details.open || loaded) return;
    loaded = true;
    body.replaceChildren(h("p", { class: "muted", text: t("loadingResult") }));
    try {
      const result = await loadResult(callId);
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
