// Answers as Markdown (lists, tables, code), made safe twice: raw HTML in the text is shown as
// text, never parsed, and whatever marked produces still goes through DOMPurify before it
// reaches the page. Both libraries are served by our server from node_modules (/vendor/…).
import { Marked } from "/vendor/marked.js";
import DOMPurify from "/vendor/purify.js";

const escapeHtml = (text) =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]);

const marked = new Marked({
  gfm: true,
  // Models write single newlines as line breaks.
  breaks: true,
  renderer: {
    // `<img src=x onerror=…>` in an answer is shown as those characters.
    html: ({ text }) => escapeHtml(text),
  },
});

// Links open in a new tab without handing it this page; DOMPurify has already dropped `javascript:` URLs.
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

const PURIFY = {
  // No images (they would load from wherever the text says), forms or styles; no event handlers, ever.
  FORBID_TAGS: ["img", "picture", "source", "video", "audio", "style", "form", "input", "button", "textarea", "select"],
  FORBID_ATTR: ["style"],
  ALLOW_DATA_ATTR: false,
  RETURN_DOM_FRAGMENT: true,
};

/** The text rendered as Markdown, sanitized, as a fragment ready to append. */
export function renderMarkdown(text) {
  const html = marked.parse(String(text ?? ""), { async: false });
  return DOMPurify.sanitize(html, PURIFY);
}
