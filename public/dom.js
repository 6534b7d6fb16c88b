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
