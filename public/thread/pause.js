// A pause answered in place: fields for missing values, Approve / Edit / Reject for risky calls.
// A risky call is drawn as risky even when it also asks for fields: its Approve button names
// the exact action, with the values filled in, because that click is the approval.
import { formatArgs, h } from "../lib/dom.js";
import { egressNote, exactArgs } from "./egress.js";
import { previewNote } from "./preview.js";
import { t } from "../lib/i18n.js";

/**
 * Draws the pause into `slot` and calls `onAnswer(resumeValue, showError)` once the user has
 * answered every waiting call. Each decision carries the `argsHash` the user was shown.
 */
export function renderPause(slot, interrupt, onAnswer) {
  const decisions = new Map();
  const fieldsByCall = new Map();
  const error = h("p", { class: "form-error", role: "alert" });
  const single = interrupt.calls.length === 1 && interrupt.calls[0].risk === "high";
  const risky = interrupt.interruptType === "confirm_risky";
  const sendButton = h("button", {
    type: "submit",
    class: "primary",
    hidden: single,
    text: t(interrupt.calls.length > 1 ? "sendAnswers" : "continue"),
  });
  const form = h(
    "form",
    { class: `pause${risky ? " risky" : ""}`, "aria-label": t(risky ? "riskyTitle" : "pauseTitle") },
    h("h3", { text: t(risky ? "riskyTitle" : "pauseTitle") }),
    h("p", {
      class: "reason",
      text: interrupt.reason || t(interrupt.interruptType === "params_required" ? "paramsReason" : "approveReason"),
    }),
    interrupt.error ? h("p", { class: "form-error", text: interrupt.error }) : null,
    interrupt.calls.map((call) => callFieldset(call, decisions, fieldsByCall, onDecide, single)),
    error,
    h("div", { class: "actions" }, sendButton),
  );

  // A single risky call is answered by its own Approve; an edit needs the submit button, and a
  // rejection its own confirm button beside the box for its reason.
  function onDecide(action) {
    if (single) sendButton.hidden = action !== "edit";
    if (single && action === "approve") form.requestSubmit();
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const answer = collect(interrupt, decisions, fieldsByCall);
    if (typeof answer === "string") {
      error.textContent = answer;
      return;
    }
    error.textContent = "";
    const controls = [...form.elements];
    for (const control of controls) control.disabled = true;
    onAnswer(answer, (message) => {
      error.textContent = message;
      for (const control of controls) control.disabled = false;
    });
  });
  slot.replaceChildren(form);
  form.querySelector("select, input, button:not([hidden])")?.focus({ preventScroll: true });
}

function callFieldset(call, decisions, fieldsByCall, onDecide, single) {
  const risky = call.risk === "high";
  const fields = (call.missing ?? []).map((field) => missingField(call, field));
  fieldsByCall.set(call.callId, fields);
  const controls = risky ? decisionControls(call, decisions, onDecide, fields, single) : [];
  return h(
    "fieldset",
    { class: `pause-call${risky ? " risky" : ""}`, dataset: { callId: call.callId } },
    h(
      "legend",
      {},
      h("strong", { text: call.tool }),
      risky ? h("span", { class: "risk-badge", text: t("highRisk") }) : null,
      risky || call.egress ? null : h("code", { text: ` ${formatArgs(call.args)}` }),
    ),
    // An egress call says why it waits, and its args mark what they copied from untrusted tool results.
    call.egress ? egressNote(call.egress) : null,
    risky || call.egress ? exactArgs(call) : null,
    call.preview ? previewNote(call.preview) : null,
    call.approvals ? approvalsLine(call.approvals) : null,
    fields.map((field) => field.element),
    controls,
  );
}

/** Four eyes: how many approvals the call has of how many it needs, who gave them, and who may not. */
function approvalsLine(approvals) {
  const given = approvals.given.map((approval) =>
    h(
      "li",
      {},
      h("strong", { text: approval.userId }),
      ` ${approval.role} · ${new Date(approval.at).toLocaleString()}`,
    ),
  );
  const requester =
    approvals.distinctFromRequester && approvals.requestedBy
      ? h("small", { text: t("requesterCannotApprove", { user: approvals.requestedBy }) })
      : null;
  return h(
    "div",
    { class: "approvals", role: "status" },
    h(
      "p",
      {},
      h("strong", { text: t("approvalsCount", { n: approvals.given.length, required: approvals.required }) }),
      " ",
      requester,
    ),
    given.length > 0 ? h("ul", {}, given) : null,
  );
}

function missingField(call, field) {
  const id = `field-${call.callId}-${field.name}`;
  const control = field.enum?.length
    ? h(
        "select",
        { id, name: field.name, required: true },
        h("option", { value: "", text: t("choose") }),
        field.enum.map((value) => h("option", { value, text: value })),
      )
    : h("input", { id, name: field.name, required: true, autocomplete: "off" });
  const element = h(
    "div",
    { class: "field" },
    h("label", { for: id }, h("span", { text: field.name }), h("small", { text: field.description })),
    control,
  );
  return { name: field.name, element, control };
}

function decisionControls(call, decisions, onDecide, fields, single) {
  const editor = h("textarea", { name: "args", rows: 5, spellcheck: "false" });
  editor.value = JSON.stringify(call.args, null, 2);
  const editBox = h("label", { class: "field", hidden: true }, h("span", { text: t("editLabel") }), editor);
  const note = h("input", { name: "message", autocomplete: "off", maxlength: 2000 });
  // With one call, Reject opens the box for the reason and this button sends it; with several,
  // the form's own submit button sends every answer at once.
  const confirmReject = single
    ? h("button", { type: "submit", class: "danger confirm-reject", text: t("confirmReject") })
    : null;
  const rejectBox = h(
    "div",
    { class: "field reject-box", hidden: true },
    h("label", { class: "field" }, h("span", { text: t("rejectLabel") }), note),
    confirmReject,
  );
  const buttons = ["approve", "edit", "reject"].map((action) =>
    h("button", {
      type: "button",
      class: `decision ${action}`,
      "aria-pressed": "false",
      dataset: { action },
      text: t(action),
      onclick: () => choose(action),
    }),
  );
  const approveButton = buttons[0];
  const nameApproval = () => (approveButton.textContent = t("approveAction", { action: actionText(call, fields) }));
  for (const field of fields) {
    field.control.addEventListener("change", nameApproval);
    field.control.addEventListener("input", nameApproval);
  }
  nameApproval();

  function choose(action) {
    decisions.set(call.callId, { action, editor, note });
    for (const button of buttons) button.setAttribute("aria-pressed", String(button.dataset.action === action));
    // Only an approval needs the missing values; an edit carries them in its JSON, a rejection none.
    for (const field of fields) field.control.required = action === "approve";
    editBox.hidden = action !== "edit";
    rejectBox.hidden = action !== "reject";
    if (action === "edit") editor.focus();
    if (action === "reject") note.focus();
    onDecide(action);
  }

  return [h("div", { class: "actions" }, buttons), editBox, rejectBox];
}

/** The action an approval runs: the tool and its final args, with `?` for a field still empty. */
function actionText(call, fields) {
  const args = { ...call.args };
  for (const field of fields) args[field.name] = field.control.value || "?";
  const shown = Object.entries(args).map(
    ([name, value]) => `${name}=${typeof value === "string" ? value : JSON.stringify(value)}`,
  );
  return [call.tool, ...shown].join(" ");
}

/** Builds the resume value from the form, or returns a message saying what is missing. */
function collect(interrupt, decisions, fieldsByCall) {
  const result = [];
  for (const call of interrupt.calls) {
    const params = {};
    for (const { name, control } of fieldsByCall.get(call.callId)) {
      if (control.value !== "") params[name] = control.value;
    }
    const base = { callId: call.callId, argsHash: call.argsHash };
    const decision = call.risk === "high" ? decisions.get(call.callId) : { action: "approve" };
    if (!decision) return `${t("pauseTitle")}: ${call.tool}`;
    if (decision.action === "edit") {
      const args = parseObject(decision.editor.value);
      if (!args) return t("badJson");
      result.push({ ...base, action: "edit", args: { ...params, ...args } });
    } else if (decision.action === "reject") {
      result.push({ ...base, action: "reject", ...(decision.note.value ? { message: decision.note.value } : {}) });
    } else {
      result.push({ ...base, action: "approve", ...(call.missing?.length ? { params } : {}) });
    }
  }
  return { decisions: result };
}

function parseObject(text) {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
