import { createHmac, timingSafeEqual } from "node:crypto";

/** The version of Slack's request signatures (`v0=<hex HMAC-SHA256>`). */
const VERSION = "v0";

/** A SHA-256 HMAC in Base16: 32 bytes. */
const V0_SIGNATURE = /^v0=([0-9a-f]{64})$/i;

/** Seconds of Unix time, as `X-Slack-Request-Timestamp` carries them. */
const UNIX_SECONDS = /^\d{1,12}$/;

/** How far a request's timestamp may be from this process's clock, either way: Slack's five minutes. */
export const SLACK_TIMESTAMP_TOLERANCE_S = 5 * 60;

/** Whether a request proves it comes from Slack, now. */
export type SlackSignatureVerdict =
  { ok: true } | { ok: false; reason: "missing" | "malformed" | "stale" | "mismatch"; message: string };

/** `v0=<hex>`: what Slack sends in `X-Slack-Signature` for `body` sent at `timestamp`, signed with `secret`. */
export function signSlackRequest(options: { body: Uint8Array | string; timestamp: string; secret: string }): string {
  return `${VERSION}=${baseStringHmac(options).toString("hex")}`;
}

/** HMAC-SHA256 of Slack's base string `v0:{timestamp}:{raw body}`. */
function baseStringHmac(options: { body: Uint8Array | string; timestamp: string; secret: string }): Buffer {
  return createHmac("sha256", options.secret).update(`${VERSION}:${options.timestamp}:`).update(options.body).digest();
}

/**
 * Checks a request as Slack documents it: the timestamp is whole seconds within five minutes of
 * `nowMs` (a captured request replayed later is refused), and the signature is the HMAC of
 * `v0:{timestamp}:{raw body}` with the signing secret, compared in constant time.
 */
export function verifySlackRequest(options: {
  /** The request body exactly as received. */
  body: Uint8Array;
  /** `X-Slack-Signature`, undefined when absent. */
  signature: string | undefined;
  /** `X-Slack-Request-Timestamp`, undefined when absent. */
  timestamp: string | undefined;
  /** `OPSPILOT_SLACK_SIGNING_SECRET`. */
  secret: string;
  /** This process's clock, epoch ms. */
  nowMs: number;
}): SlackSignatureVerdict {
  const signature = options.signature?.trim();
  const timestamp = options.timestamp?.trim();
  if (!signature || !timestamp)
    return {
      ok: false,
      reason: "missing",
      message: "X-Slack-Signature and X-Slack-Request-Timestamp are both required.",
    };
  if (!UNIX_SECONDS.test(timestamp))
    return { ok: false, reason: "malformed", message: "X-Slack-Request-Timestamp must be Unix time in seconds." };
  if (Math.abs(options.nowMs / 1000 - Number(timestamp)) > SLACK_TIMESTAMP_TOLERANCE_S)
    return {
      ok: false,
      reason: "stale",
      message: `X-Slack-Request-Timestamp is more than ${SLACK_TIMESTAMP_TOLERANCE_S / 60} minutes from this server's clock.`,
    };
  const match = V0_SIGNATURE.exec(signature);
  if (!match) return { ok: false, reason: "malformed", message: "X-Slack-Signature must be v0=<hex HMAC-SHA256>." };
  const expected = baseStringHmac({ body: options.body, timestamp, secret: options.secret });
  if (timingSafeEqual(Buffer.from(match[1]!, "hex"), expected)) return { ok: true };
  return {
    ok: false,
    reason: "mismatch",
    message: "X-Slack-Signature does not match the request signed with OPSPILOT_SLACK_SIGNING_SECRET.",
  };
}
