import { describe, expect, it } from "vitest";
import { MASK_RULES, maskSensitive, ruleMayMatch, type MaskRule } from "../../../src/tools/masking/mask.js";
import { DATASET } from "../../../src/demo/ops/data/index.js";
import { toolPayload } from "../../../bench/workload.js";

/** Every string of a JSON value, keys included. */
function stringsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, into);
  else if (value && typeof value === "object")
    for (const [key, item] of Object.entries(value)) {
      into.push(key);
      stringsOf(item, into);
    }
  return into;
}

/** A seeded generator, so a failure names a text that comes back on the next run. */
function randomTexts(count: number, seed: number): string[] {
  let state = seed;
  const random = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const run = (length: number, alphabet: string) =>
    Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
  const base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+";
  // Pieces of every pattern, so that whole matches and near misses both come up often.
  const fragments = [
    ...["sk-", "pk-", "rk-", "sk_live_", "rk_test_", "pk_live_", "AKIA", "ASIA", "AIza", "ghp_", "gho_"],
    ...["github_pat_", "glpat-", "xoxb-", "xoxp-", "eyJ", ".", "Bearer ", "bearer\t", "BEARER  "],
    ...["password", "passwd", "api_key", "api-key", "secret_key", "access_key", "token", "Secret", "TOKEN"],
    ...["=", ":", ": ", '"', "\\", '\\"', "@", "://", "https://", "redis://:", "postgres://app:"],
    ...["-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----"],
    ...["PRIVATE KEY", "+86 ", "+86-", "+", "+1 (", "(", ")", "-", " ", "\n", "\t", ",", ";", "}"],
    ...["[masked]", "[key masked]", "example.com", ".io", "中文", "😀", "x", "Z", "_", "/", "X"],
    ...["1", "13", "138", "86", "19", "20", "1990", "0101", "110105"],
  ];
  const digits = (length: number) => run(length, "0123456789");
  const word = (length: number) => run(length, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
  // Whole matches of the rarer patterns, one character changed now and then: matches and near misses.
  const shaped = [
    () => `${pick(["AKIA", "ASIA"])}${run(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")}`,
    () =>
      `eyJ${word(4 + Math.floor(random() * 8))}.${word(4 + Math.floor(random() * 8))}.${word(Math.floor(random() * 8))}`,
    () =>
      `${1 + Math.floor(random() * 9)}${digits(5)}${pick(["18", "19", "20"])}${digits(2)}${pick(["01", "09", "12"])}${pick(["01", "19", "31"])}${digits(3)}${pick(["X", "x", "7"])}`,
    () => `${pick(["https", "redis", "postgres"])}://${word(3)}:${word(6)}@${word(5)}.${pick(["com", "io"])}`,
    () =>
      `${word(1 + Math.floor(random() * 8))}@${word(1 + Math.floor(random() * 8))}.${pick(["com", "io", "cn", "x"])}`,
    () => `AIza${word(35)}`,
  ];
  const mutate = (text: string) => {
    if (random() < 0.7) return text;
    const at = Math.floor(random() * text.length);
    return `${text.slice(0, at)}${pick(["-", " ", "0", "a", "Z", "@", "."])}${text.slice(at + 1)}`;
  };
  return Array.from({ length: count }, () => {
    const parts: string[] = [];
    for (let part = Math.floor(random() * 12); part >= 0; part -= 1) {
      const kind = random();
      if (kind < 0.08) parts.push(mutate(pick(shaped)()));
      else if (kind < 0.35) parts.push(pick(fragments));
      else if (kind < 0.55) parts.push(run(1 + Math.floor(random() * 20), "0123456789"));
      else if (kind < 0.65)
        parts.push(`${run(1 + Math.floor(random() * 5), "0123456789")}${pick(["-", " ", "", "--", "  "])}`);
      else if (kind < 0.75) parts.push(run(36 + Math.floor(random() * 8), base64));
      else if (kind < 0.8) parts.push(run(1 + Math.floor(random() * 30), `${base64}_-`));
      else if (kind < 0.85) parts.push(run(14 + Math.floor(random() * 5), "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"));
      else parts.push(run(1 + Math.floor(random() * 6), "abcdef.@-_+:/= 0123456789"));
    }
    return parts.join("");
  });
}

/** Texts a result, a fact or an argument may hold: the demo dataset, a bench result, secrets, random texts. */
const TEXTS = [
  ...stringsOf(DATASET),
  ...stringsOf(toolPayload("20kb", "q1")),
  "pem -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY----- end",
  "db postgres://app:s3cr3t-Pw@db:5432/orders ok",
  "aws wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY end",
  "call 13800138000, +86 138-0013-8000, 138 0013 8000 or +1 (415) 555-2671",
  "id 11010519491231002X and 110105194912310021",
  "mail alice.wong@example.com, jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvcHMifQ.c2lnbmF0dXJlLXZhbHVl",
  ...randomTexts(20_000, 20_261_201),
];

/** Whether the rule's pattern finds a match in the text (a fresh copy: the rules' patterns are global). */
function patternMatches(rule: MaskRule, text: string): boolean {
  return new RegExp(rule.pattern.source, rule.pattern.flags.replace("g", "")).test(text);
}

/** Every pattern applied in turn, with no pre-filter: what masking means. */
function maskedByEveryPattern(text: string): string {
  let masked = text;
  for (const { pattern, replacement } of MASK_RULES)
    masked =
      typeof replacement === "string" ? masked.replace(pattern, replacement) : masked.replace(pattern, replacement);
  return masked;
}

describe("the masking pre-filter", () => {
  it("never skips a text that a rule's pattern matches", () => {
    MASK_RULES.forEach((rule, index) => {
      const matched = TEXTS.filter((text) => patternMatches(rule, text));
      // Each rule meets enough of its own matches for the check to mean something.
      expect({ rule: index, matched: matched.length >= 25 }).toEqual({ rule: index, matched: true });
      const skipped = matched.filter((text) => !ruleMayMatch(rule, text));
      expect({ rule: index, skipped }).toEqual({ rule: index, skipped: [] });
    });
  });

  it("masks every text exactly as every pattern applied in turn masks it", () => {
    const differing = TEXTS.filter((text) => maskSensitive(text) !== maskedByEveryPattern(text));
    expect(differing).toEqual([]);
    // The texts include plenty that masking changes, and plenty that it keeps.
    const changed = TEXTS.filter((text) => maskSensitive(text) !== text).length;
    expect(changed).toBeGreaterThan(1_000);
    expect(TEXTS.length - changed).toBeGreaterThan(1_000);
  });

  it("passes timestamps and log figures by, and masks phone numbers written with separators", () => {
    const phone = MASK_RULES.find((rule) => rule.pattern.source.includes("1[3-9]"))!;
    expect(ruleMayMatch(phone, "2025-01-01T00:13:00Z")).toBe(false);
    expect(ruleMayMatch(phone, "request 13 handled in 148 ms, 1913 rows")).toBe(false);
    expect(maskSensitive("call 138-0013-8000 or 138 0013 8000 now")).toBe("call [phone masked] or [phone masked] now");
    expect(maskSensitive("+86 13800138000")).toBe("[phone masked]");
  });
});
