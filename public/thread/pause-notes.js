// The note that replaces a pause's form once it is answered: how each waiting call was answered,
// from the answer just sent or, redrawn later, from the calls' recorded results.
import { changeText } from "./call-card.js";
import { formatValue, h } from "../lib/dom.js";
import { t } from "../lib/i18n.js";

/** A one-line record of how the user answered a pause, shown where the form was, from the answer just sent. */
export function answerNote(interrupt, resume) {
  const parts = resume.decisions.map((decision) => {
    const call = interrupt.calls.find((item) => item.callId === decision.callId);
    const after = decision.action === "edit" ? decision.args : { ...call?.args, ...decision.params };
    const changes = decision.action === "reject" ? [] : argChanges(call?.args ?? {}, after ?? {});
    return notePart(call?.tool ?? decision.callId, decision.action, changes, decision.message);
  });
  return h("p", { class: "answered", text: `${t("answered")} ${parts.join("; ")}` });
}

/**
 * The same record, redrawn from the thread's events: each waiting call's result (`resultOf(callId)`) carries who
 * answered and how (`decision`); a call that ended without an answer was stopped while it waited.
 * Undefined when nothing is known of the answer.
 */
export function recordedAnswerNote(interrupt, resultOf) {
  const parts = [];
  for (const call of interrupt.calls) {
    const result = resultOf(call.callId);
    if (result?.decision) {
      const { action, changes, message } = result.decision;
      parts.push(notePart(call.tool, action, changes ?? [], message));
    } else if (result?.errorCode === "cancelled") parts.push(`${call.tool}: ${t("stoppedWhileWaiting")}`);
  }
  if (parts.length === 0) return undefined;
  return h("p", { class: "answered", text: `${t("answered")} ${parts.join("; ")}` });
}

function notePart(tool, action, changes, message) {
  const details = action === "reject" ? (message ? [message] : []) : changes.map(changeText);
  return `${tool}: ${t(action)}${details.length > 0 ? ` (${details.join(", ")})` : ""}`;
}

/** Keys whose value the answer filled or changed (the server's `decision.changes`, computed here for the note). */
function argChanges(before, after) {
  const same = (a, b) => formatValue(a) === formatValue(b) && typeof a === typeof b;
  const changes = [];
  for (const [field, value] of Object.entries(after)) {
    if (!(field in before)) changes.push({ field, after: value });
    else if (!same(before[field], value)) changes.push({ field, before: before[field], after: value });
  }
  for (const [field, value] of Object.entries(before)) if (!(field in after)) changes.push({ field, before: value });
  return changes;
}
