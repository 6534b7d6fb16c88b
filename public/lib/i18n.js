// UI labels in Chinese and English; the language follows the browser unless the user picks one.
import { EN } from "./labels-en.js";
import { ZH } from "./labels-zh.js";

const LABELS = { en: EN, zh: ZH };

const STORAGE_KEY = "opspilot.lang";
let language = pickLanguage();

function pickLanguage() {
  const stored = window.localStorage.getItem(STORAGE_KEY);
  if (stored === "zh" || stored === "en") return stored;
  return (navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en";
}

/** The current UI language, "zh" or "en". */
export function currentLanguage() {
  return language;
}

/** Switches the language and remembers the choice. */
export function toggleLanguage() {
  language = language === "zh" ? "en" : "zh";
  window.localStorage.setItem(STORAGE_KEY, language);
}

/** A label with `{name}` placeholders filled; a label with plural forms picks one by `values.n`. */
export function t(key, values = {}) {
  let text = LABELS[language][key] ?? LABELS.en[key] ?? key;
  if (typeof text === "object")
    text = new Intl.PluralRules(language).select(values.n ?? 0) === "one" ? text.one : text.other;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

/** An error code in words. */
export function errorCodeText(code) {
  return LABELS[language].errorCodes[code] ?? code;
}

/** An API refusal in words, or undefined when the server's own message says more. */
export function apiErrorText(code) {
  return LABELS[language].apiErrors[code];
}

/** A stop reason in words. */
export function stopReasonText(reason) {
  return LABELS[language].stopReasons[reason] ?? reason;
}

/** Fills every `[data-label]` text and `[data-label-placeholder]` in the page. */
export function applyStaticLabels(root = document) {
  document.documentElement.lang = language === "zh" ? "zh-CN" : "en";
  for (const element of root.querySelectorAll("[data-label]")) element.textContent = t(element.dataset.label);
  for (const element of root.querySelectorAll("[data-label-placeholder]"))
    element.placeholder = t(element.dataset.labelPlaceholder);
}
