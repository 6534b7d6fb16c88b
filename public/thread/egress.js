// A call that sends data out of a thread that read untrusted content (issue 30): its args are
// drawn as the pause shows them, with each part copied from a tool result marked in the field
// it stands in, and a line naming where the thread's content came from. Text goes in as text.
import { h } from "../lib/dom.js";
import { t } from "../lib/i18n.js";

/**
 * The exact args of a waiting call, as `JSON.stringify(args, null, 2)` writes them; for a call
 * with `egress`, each of `egress.copied` is a `<mark>` inside its field's value, and the parts
 * not found there are listed below the args.
 */
export function exactArgs(call) {
  const copied = call.egress?.copied ?? [];
  const byField = new Map();
  for (const part of copied) byField.set(part.field, [...(byField.get(part.field) ?? []), part]);
  const placed = new Set();
  const out = [];
  writeJson(call.args ?? {}, "", 0, byField, placed, out);
  const pre = h("pre", { class: "exact-args" }, merged(out));
  const unplaced = copied.filter((part) => !placed.has(part));
  if (unplaced.length === 0) return pre;
  return [
    pre,
    h(
      "div",
      { class: "copied-elsewhere" },
      h("p", { text: t("copiedElsewhere") }),
      h(
        "ul",
        {},
        unplaced.map((part) => h("li", {}, h("code", { text: `${part.field}: ` }), copiedMark(part, part.text))),
      ),
    ),
  ];
}

/** The line under an egress call: it sends data out, and the untrusted tools the thread read. */
export function egressNote(egress) {
  const tools = [...new Set(egress.copied.map((part) => part.from))];
  return h(
    "div",
    { class: "egress-note" },
    h("p", {}, h("strong", { text: t("egressSources", { sources: egress.sources.join(", ") }) })),
    tools.length > 0 ? h("p", { text: t("egressCopied", { tools: tools.join(", ") }) }) : null,
  );
}

/** The marker of a tool result whose content came from an untrusted tool. */
export function untrustedBadge() {
  return h("span", { class: "untrusted-badge", title: t("untrustedHint"), text: t("untrustedSource") });
}

function copiedMark(part, text) {
  return h("mark", { class: "copied", title: t("copiedFrom", { tool: part.from }), text });
}

/** Joins adjacent strings of `out` so the `<pre>` holds as few text nodes as it can. */
function merged(out) {
  const nodes = [];
  for (const item of out) {
    if (typeof item === "string" && typeof nodes.at(-1) === "string") nodes[nodes.length - 1] += item;
    else nodes.push(item);
  }
  return nodes;
}

/**
 * Writes `value` into `out` as `JSON.stringify(value, null, 2)` would at `depth`, with field
 * paths as the server names them (`message`, `blocks[0].text`, `a.b`).
 */
function writeJson(value, path, depth, byField, placed, out) {
  if (typeof value === "string") return writeString(value, byField.get(path) ?? [], placed, out);
  if (value === null || typeof value !== "object") return void out.push(JSON.stringify(value) ?? "null");
  const inner = "  ".repeat(depth + 1);
  if (Array.isArray(value)) {
    if (value.length === 0) return void out.push("[]");
    out.push("[\n");
    value.forEach((item, index) => {
      out.push(index > 0 ? `,\n${inner}` : inner);
      if (item === undefined || typeof item === "function") out.push("null");
      else writeJson(item, `${path}[${index}]`, depth + 1, byField, placed, out);
    });
    return void out.push(`\n${"  ".repeat(depth)}]`);
  }
  const entries = Object.entries(value).filter(([, item]) => item !== undefined && typeof item !== "function");
  if (entries.length === 0) return void out.push("{}");
  out.push("{\n");
  entries.forEach(([key, item], index) => {
    out.push(`${index > 0 ? `,\n${inner}` : inner}${JSON.stringify(key)}: `);
    writeJson(item, path ? `${path}.${key}` : key, depth + 1, byField, placed, out);
  });
  out.push(`\n${"  ".repeat(depth)}}`);
}

/** A JSON string with each copied part that stands in it marked; each part marks its first place not taken by another. */
function writeString(value, parts, placed, out) {
  const ranges = [];
  for (const part of parts) {
    if (part.text.length === 0) continue;
    for (let at = value.indexOf(part.text); at >= 0; at = value.indexOf(part.text, at + 1)) {
      const end = at + part.text.length;
      if (ranges.some((range) => at < range.end && end > range.start)) continue;
      ranges.push({ start: at, end, part });
      placed.add(part);
      break;
    }
  }
  ranges.sort((a, b) => a.start - b.start);
  const escaped = (text) => JSON.stringify(text).slice(1, -1);
  out.push('"');
  let cursor = 0;
  for (const range of ranges) {
    out.push(escaped(value.slice(cursor, range.start)));
    out.push(copiedMark(range.part, escaped(value.slice(range.start, range.end))));
    cursor = range.end;
  }
  out.push(`${escaped(value.slice(cursor))}"`);
}
