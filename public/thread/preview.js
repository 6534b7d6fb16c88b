// A write's dry run in its pause (issue 47): the fields that will change, `from → to`, so the
// approver sees exactly what the approval does. Text goes in as text.
import { h } from "../lib/dom.js";
import { t } from "../lib/i18n.js";

const shown = (value) =>
  value === null || value === undefined ? "—" : typeof value === "string" ? value : JSON.stringify(value);

/** The dry-run block of a waiting call: a heading and one row per changed field, or why there is none. */
export function previewNote(preview) {
  if (preview.error)
    return h("p", { class: "dry-run dry-run-failed", text: t("dryRunFailed", { error: preview.error }) });
  const rows = preview.changes.map((change) =>
    h(
      "li",
      {},
      h("code", { text: change.path }),
      " ",
      h("span", { class: "dry-run-from", text: shown(change.from) }),
      " → ",
      h("strong", { class: "dry-run-to", text: shown(change.to) }),
    ),
  );
  return h(
    "div",
    { class: "dry-run" },
    h("p", { text: t(rows.length > 0 ? "dryRunChanges" : "dryRunNoChange") }),
    rows.length > 0 ? h("ul", {}, rows) : null,
    preview.note ? h("p", { class: "dry-run-note", text: preview.note }) : null,
  );
}
