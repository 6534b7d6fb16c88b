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

interface Mask {
  /** A cheap test: when the text cannot hold a match, the regex scan is skipped (large results). */
  hint?: string | RegExp;
  /** Texts shorter than the shortest match are skipped. */
  minLength?: number;
  pattern: RegExp;
  replacement: string | ((match: string) => string);
}

/** Order matters: whole keys and tokens first, so a generic pattern never masks half of one. */
const MASKS: Mask[] = [
  {
    // A block whose END was cut off by the tool is masked to the end of its text.
    hint: "PRIVATE KEY",
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    replacement: PRIVATE_KEY,
  },
  {
    // scheme://user:password@host keeps scheme, user and host: they say where, not how to get in.
    hint: "@",
    pattern: /\b([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/?#@"'<>\\]*):[^\s/?#@"'<>\\]+@/gi,
    replacement: `$1:${SECRET}@`,
  },
  { hint: /bearer/i, pattern: /\b(Bearer)\s+[A-Za-z0-9._~+/-]{8,4096}=*/gi, replacement: `$1 ${TOKEN}` },
  { hint: "k-", pattern: /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}\b/g, replacement: KEY },
  { hint: /[spr]k_/, pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}/g, replacement: KEY },
  { hint: /A[KS]IA/, pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replacement: KEY },
  { hint: "AIza", pattern: /\bAIza[0-9A-Za-z_-]{35}/g, replacement: KEY },
  { hint: "_", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, replacement: TOKEN },
  { hint: "glpat-", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g, replacement: TOKEN },
  { hint: "xox", pattern: /\bxox[abeoprs]-[A-Za-z0-9-]{10,}/g, replacement: TOKEN },
  { hint: "eyJ", pattern: /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, replacement: TOKEN },
  {
    hint: /key|secret|pass|token/i,
    pattern:
      /((?:api[_-]?key|secret[_-]?key|private[_-]?key|secret|password|passwd|token|access[_-]?key)\\?"?\s*[:=]\s*\\?"?)(?!\[[a-z ]*masked\])[^\s"\\,;}]{4,}/gi,
    replacement: `$1${SECRET}`,
  },
  {
    hint: "@",
    pattern: /[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}/g,
    replacement: EMAIL,
  },
  {
    // A 40-character run standing alone: the shape of an AWS secret access key (see looksLikeSecretKey).
    minLength: 40,
    pattern: /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/g,
    replacement: (run) => (looksLikeSecretKey(run) ? KEY : run),
  },
  {
    // Chinese resident ID: 6-digit region, birth date, 3 digits and a check digit or X.
    hint: /\d{17}/,
    minLength: 18,
    pattern: /(?<![0-9])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9])/g,
    replacement: ID_NUMBER,
  },
  {
    hint: /1[3-9]/,
    minLength: 11,
    pattern: /(?<![0-9])(?:\+?86[- ]?)?1[3-9]\d[- ]?\d{4}[- ]?\d{4}(?![0-9])/g,
    replacement: PHONE,
  },
  {
    hint: "+",
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

/** Masks secrets, credentials in URLs, emails, phone numbers and ID numbers in a text. */
export function maskSensitive(text: string): string {
  if (text.length < SHORTEST_MATCH) return text;
  let masked = text;
  for (const { hint, minLength = 0, pattern, replacement } of MASKS) {
    if (masked.length < minLength) continue;
    const possible = hint === undefined || (typeof hint === "string" ? masked.includes(hint) : hint.test(masked));
    if (!possible) continue;
    masked =
      typeof replacement === "string" ? masked.replace(pattern, replacement) : masked.replace(pattern, replacement);
  }
  return masked;
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
  // fromEntries defines own properties, so a "__proto__" key stays a plain key.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      const view = viewKey(key);
      return [view.name, view.secret && typeof item === "string" && item !== "" ? SECRET : maskValue(item)];
    }),
  );
}
