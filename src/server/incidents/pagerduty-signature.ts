import { createHmac, timingSafeEqual } from "node:crypto";

/** The signature scheme PagerDuty's V3 webhooks use (`v1=<hex HMAC-SHA256 of the body>`). */
const V1_PREFIX = "v1=";

/** A SHA-256 HMAC in Base16: 32 bytes. */
const HEX_DIGEST = /^[0-9a-f]{64}$/i;

/** Whether a delivery's `X-PagerDuty-Signature` proves it was signed with our secret. */
export type SignatureVerdict =
  { ok: true } | { ok: false; reason: "missing" | "malformed" | "mismatch"; message: string };

/**
 * The `v1` signatures of an `X-PagerDuty-Signature` header as 32-byte digests: comma-separated
 * `v1=<hex>` values, several while a secret is rotated. Other versions and values that are no
 * SHA-256 digest are left out (PagerDuty: "select only signatures which are version v1").
 */
export function parseSignatureHeader(header: string): Buffer[] {
  return header
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.startsWith(V1_PREFIX))
    .map((part) => part.slice(V1_PREFIX.length))
    .filter((hex) => HEX_DIGEST.test(hex))
    .map((hex) => Buffer.from(hex, "hex"));
}

/** `v1=<hex>`: the signature PagerDuty sends for `body` signed with `secret`. */
export function signPagerdutyBody(body: Uint8Array | string, secret: string): string {
  return V1_PREFIX + createHmac("sha256", secret).update(body).digest("hex");
}

/**
 * Checks the raw body (its exact bytes, before any parsing) against every `v1` signature of the
 * header; one match passes. Each comparison takes constant time on equal-length digests, and every
 * candidate is compared, so the time says nothing about which one matched.
 */
export function verifyPagerdutySignature(options: {
  /** The request body exactly as received. */
  body: Uint8Array;
  /** The `X-PagerDuty-Signature` header, undefined when absent. */
  header: string | undefined;
  /** `OPSPILOT_PAGERDUTY_SECRET`. */
  secret: string;
}): SignatureVerdict {
  if (options.header === undefined || options.header.trim() === "")
    return { ok: false, reason: "missing", message: "The X-PagerDuty-Signature header is missing." };
  const candidates = parseSignatureHeader(options.header);
  if (candidates.length === 0)
    return {
      ok: false,
      reason: "malformed",
      message: "X-PagerDuty-Signature holds no v1=<hex HMAC-SHA256> signature.",
    };
  const expected = createHmac("sha256", options.secret).update(options.body).digest();
  let matched = false;
  for (const candidate of candidates) matched = timingSafeEqual(candidate, expected) || matched;
  if (matched) return { ok: true };
  return {
    ok: false,
    reason: "mismatch",
    message: "No X-PagerDuty-Signature matches the body signed with OPSPILOT_PAGERDUTY_SECRET.",
  };
}
