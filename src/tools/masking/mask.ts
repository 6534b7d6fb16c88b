import {
  ASSIGN,
  AT,
  CAPITAL_I,
  CAPITAL_J,
  COLON,
  DASH,
  DIGITS_11_SPACED,
  DIGITS_17,
  DOT,
  LETTER_B,
  PLUS,
  RUN_40,
  UNDERSCORE,
  shapeOf,
} from "./text-shape.js";

/** What replaces a masked value. A cut never splits one, so a kept text shows whole markers only. */
export const MASK_TOKENS = [
  "[private key masked]",
  "[token masked]",
  "[key masked]",
  "[email masked]",
  "[id number masked]",
  "[phone masked]",
  "[masked]",
] as const;

const [PRIVATE_KEY, TOKEN, KEY, EMAIL, ID_NUMBER, PHONE, SECRET] = MASK_TOKENS;

/** One pattern, and what a text must hold for the pattern to match in it. */
export interface MaskRule {
  /** Bits of `shapeOf` that every match sets: without them, the text is not scanned. */
  needs: number;
  /** Then a cheap test of a literal the pattern spells out. */
  hint?: string | RegExp;
  pattern: RegExp;
  replacement: string | ((match: string) => string);
}

/**
 * Order matters: whole keys and tokens first, so a generic pattern never masks half of one.
 * `needs` and `hint` ask only for what a pattern spells out; test/unit/execution/mask-prefilter.test.ts
 * checks that no rule skips a text its pattern matches.
 */
export const MASK_RULES: readonly MaskRule[] = [
  {
    // A block whose END was cut off by the tool is masked to the end of its text.
    needs: DASH,
    hint: "PRIVATE KEY",
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    replacement: PRIVATE_KEY,
  },
  {
    // scheme://user:password@host keeps scheme, user and host: they say where, not how to get in.
    needs: AT | COLON,
    hint: "://",
    pattern: /\b([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/?#@"'<>\\]*):[^\s/?#@"'<>\\]+@/gi,
    replacement: `$1:${SECRET}@`,
  },
  {
    needs: LETTER_B,
    hint: /bearer/i,
    pattern: /\b(Bearer)\s+[A-Za-z0-9._~+/-]{8,4096}=*/gi,
    replacement: `$1 ${TOKEN}`,
  },
  { needs: DASH, hint: "k-", pattern: /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}\b/g, replacement: KEY },
  { needs: UNDERSCORE, hint: /[spr]k_/, pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}/g, replacement: KEY },
  { needs: CAPITAL_I, hint: /A[KS]IA/, pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replacement: KEY },
  { needs: CAPITAL_I, hint: "AIza", pattern: /\bAIza[0-9A-Za-z_-]{35}/g, replacement: KEY },
  {
    needs: UNDERSCORE,
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g,
    replacement: TOKEN,
  },
  { needs: DASH, hint: "glpat-", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g, replacement: TOKEN },
  { needs: DASH, hint: "xox", pattern: /\bxox[abeoprs]-[A-Za-z0-9-]{10,}/g, replacement: TOKEN },
  {
    needs: DOT | CAPITAL_J,
    hint: "eyJ",
    pattern: /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g,
    replacement: TOKEN,
  },
  {
    needs: ASSIGN,
    hint: /key|secret|pass|token/i,
    pattern:
      /((?:api[_-]?key|secret[_-]?key|private[_-]?key|secret|password|passwd|token|access[_-]?key)\\?"?\s*[:=]\s*\\?"?)(?!\[[a-z ]*masked\])[^\s"\\,;}]{4,}/gi,
    replacement: `$1${SECRET}`,
  },
  {
    needs: AT | DOT,
    pattern: /[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}/g,
    replacement: EMAIL,
  },
  {
    // A 40-character run standing alone: the shape of an AWS secret access key (see looksLikeSecretKey).
    needs: RUN_40,
    pattern: /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/g,
    replacement: (run) => (looksLikeSecretKey(run) ? KEY : run),
  },
  {
    // Chinese resident ID: 6-digit region, birth date, 3 digits and a check digit or X.
    needs: DIGITS_17,
    pattern: /(?<![0-9])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9])/g,
    replacement: ID_NUMBER,
  },
  {
    // Eleven digits, each at most one `-` or space from the next, which most timestamps and log figures lack.
    needs: DIGITS_11_SPACED,
    pattern: /(?<![0-9])(?:\+?86[- ]?)?1[3-9]\d[- ]?\d{4}[- ]?\d{4}(?![0-9])/g,
    replacement: PHONE,
  },
  {
    needs: PLUS,
    pattern: /(?<![\w])\+\d{1,3}[- ]?\(?\d{2,4}\)?[- ]?\d{3,4}[- ]?\d{3,4}(?![0-9])/g,
    replacement: PHONE,
  },
];

/**
 * Whether a lone 40-character base64 run is a secret key rather than an ordinary id.
 * Keys are random: they mix upper case, lower case and digits, and most hold a `/` or `+`;
 * the rest change character class at about 65% of positions. Git SHAs (lower-case hex) and
 * UUIDs (36 characters with hyphens) never qualify, and CamelCase identifiers change class
 * too rarely. A `/` does not count at either end of the run, where it marks a path. Missed: about 0.3% of
 * random keys (no `/` or `+` and unusually few class changes); a key labelled as one
 * (`aws_secret_access_key=…`) is masked by the key-value pattern whatever its shape.
 */
function looksLikeSecretKey(run: string): boolean {
  if (!/[A-Z]/.test(run) || !/[a-z]/.test(run) || !/[0-9]/.test(run)) return false;
  if (/[/+]/.test(run.slice(1, -1)) && !run.startsWith("/") && !run.endsWith("/")) return true;
  let changes = 0;
  for (let index = 1; index < run.length; index += 1)
    if (characterClass(run[index]!) !== characterClass(run[index - 1]!)) changes += 1;
  return changes >= 18;
}

function characterClass(character: string): number {
  if (character >= "A" && character <= "Z") return 0;
  if (character >= "a" && character <= "z") return 1;
  if (character >= "0" && character <= "9") return 2;
  return 3;
}

/** The shortest text any pattern matches: an email such as `a@b.cd`. */
const SHORTEST_MATCH = 6;

/**
 * Masks secrets, credentials in URLs, emails, phone numbers and ID numbers in a text. One
 * pass over its characters tells which patterns could match; only those scan it.
 */
export function maskSensitive(text: string): string {
  if (text.length < SHORTEST_MATCH) return text;
  let masked = text;
  let shape = shapeOf(text);
  for (const rule of MASK_RULES) {
    if (!passes(rule, shape, masked)) continue;
    const { pattern, replacement } = rule;
    const next =
      typeof replacement === "string" ? masked.replace(pattern, replacement) : masked.replace(pattern, replacement);
    // The later rules look at the replaced text: its shape is taken again.
    if (next !== masked) shape = shapeOf(next);
    masked = next;
  }
  return masked;
}

/** Whether `rule` scans `text`: what maskSensitive asks before running the rule's pattern. */
export function ruleMayMatch(rule: MaskRule, text: string): boolean {
  return passes(rule, shapeOf(text), text);
}

function passes(rule: MaskRule, shape: number, text: string): boolean {
  if ((shape & rule.needs) !== rule.needs) return false;
  const { hint } = rule;
  return hint === undefined || (typeof hint === "string" ? text.includes(hint) : hint.test(text));
}

/** Words of an object key that mark its value as a secret, whatever the surrounding words. */
const SECRET_WORDS = new Set([
  "password",
  "passwd",
  "passphrase",
  "secret",
  "token",
  "apikey",
  "credential",
  "credentials",
  "authorization",
]);
/** Word pairs that mark a secret only together (`api_key`, `accessKey`, `private-key`). */
const SECRET_PAIRS = new Set(["api key", "access key", "private key"]);

/** Whether an object key names a secret (`password`, `access_token`, `SecretAccessKey`, `x-api-key`). */
function isSecretKey(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word, index) => SECRET_WORDS.has(word) || SECRET_PAIRS.has(`${word} ${words[index + 1]}`));
}

/** An object key as shown, and whether its value is a secret. */
interface KeyView {
  name: string;
  secret: boolean;
}

/** Results repeat the same few keys in every row; bounded, since keys can also be data. */
const keyViews = new Map<string, KeyView>();
const KEY_VIEWS_MAX = 2_000;

function viewKey(key: string): KeyView {
  let view = keyViews.get(key);
  if (view) return view;
  view = { name: maskSensitive(key), secret: isSecretKey(key) };
  if (keyViews.size >= KEY_VIEWS_MAX) keyViews.clear();
  keyViews.set(key, view);
  return view;
}

/**
 * Masks a JSON value string by string. Masking each string on its own, rather than the
 * JSON text, keeps escapes such as `\n` from gluing to a secret and hiding it from the
 * patterns; a string under a key that names a secret (`password`, `apiKey`) is masked whole.
 */
export function maskValue(value: unknown): unknown {
  if (typeof value === "string") return maskSensitive(value);
  if (value === null || typeof value !== "object") return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return maskValue((toJSON as () => unknown).call(value));
  if (Array.isArray(value)) return value.map(maskValue);
  const masked: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const view = viewKey(key);
    const shown = view.secret && typeof item === "string" && item !== "" ? SECRET : maskValue(item);
    // Assigning "__proto__" would set the prototype; defined, it stays a plain key.
    if (view.name === "__proto__")
      Object.defineProperty(masked, view.name, { value: shown, enumerable: true, writable: true, configurable: true });
    else masked[view.name] = shown;
  }
  return masked;
}
