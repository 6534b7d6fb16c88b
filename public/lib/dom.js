// A tiny element builder: text always goes in as text, never as HTML.

/** Creates an element with attributes, listeners (`onclick`…) and children. */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = value;
    else if (key === "dataset") Object.assign(element.dataset, value);
    else if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null && child !== false) element.append(child);
  }
  return element;
}

/** A duration for people: "85 ms", "1.2 s". */
export function formatDuration(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Arguments as compact JSON for a card. */
export function formatArgs(args) {
  try {
    return JSON.stringify(args ?? {});
  } catch {
    return String(args);
  }
}

/** Where a JSON text cut short can end readably: after the last comma outside a string, or undefined. */
function lastCommaOutsideStrings(text) {
  let inString = false;
  let last;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === ",") last = i;
  }
  return last;
}

/**
 * A one-line summary as a card shows it, never cut mid-key or mid-word: a summary the server
 * cut short (JSON that no longer parses, or text stopped mid-word) ends at the last readable
 * boundary with an ellipsis. The full result is one click away.
 */
export function readableSummary(summary) {
  const text = String(summary ?? "");
  const trimmed = text.trim();
  if (/^[[{]/.test(trimmed)) {
    try {
      JSON.parse(trimmed);
      return text;
    } catch {
      const comma = lastCommaOutsideStrings(trimmed);
      return comma === undefined ? `${trimmed.slice(0, 1)}…` : `${trimmed.slice(0, comma)}, …`;
    }
  }
  if (text.length >= 160 && !/[.。!！?？)\]}"'”]$/.test(text)) {
    const space = text.lastIndexOf(" ");
    return `${(space > 80 ? text.slice(0, space) : text).trimEnd()}…`;
  }
  return text;
}

/** A value inside a one-line change: strings as they are, anything else as JSON. */
export function formatValue(value) {
  return typeof value === "string" ? value : formatArgs(value);
}

/**
 * Wraps a loader so calls made while one load runs share one more load after it: a burst of
 * refreshes costs at most two requests, and the last one sees everything asked before it.
 */
export function coalesced(load) {
  let pending;
  let again = false;
  const run = () => {
    if (pending) {
      again = true;
      return pending;
    }
    pending = load().finally(() => {
      pending = undefined;
      if (again) {
        again = false;
        void run();
      }
    });
    return pending;
  };
  return run;
}
