import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signSlackRequest, verifySlackRequest } from "../../../src/server/slack/signature.js";

const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const body = new TextEncoder().encode(
  "payload=%7B%22type%22%3A%22block_actions%22%2C%22user%22%3A%7B%22id%22%3A%22U0123%22%7D%7D",
);
const NOW_S = 1_764_700_000;
const TIMESTAMP = String(NOW_S);
const hex = createHmac("sha256", SECRET).update(`v0:${TIMESTAMP}:`).update(body).digest("hex");

const verify = (signature: string | undefined, options: { timestamp?: string; nowS?: number; raw?: Uint8Array } = {}) =>
  verifySlackRequest({
    body: options.raw ?? body,
    signature,
    timestamp: "timestamp" in options ? options.timestamp : TIMESTAMP,
    secret: SECRET,
    nowMs: (options.nowS ?? NOW_S) * 1000,
  });

describe("X-Slack-Signature", () => {
  it("signs v0:{timestamp}:{raw body} as v0=<hex HMAC-SHA256>, as Slack does", () => {
    expect(signSlackRequest({ body, timestamp: TIMESTAMP, secret: SECRET })).toBe(`v0=${hex}`);
    expect(signSlackRequest({ body: new TextDecoder().decode(body), timestamp: TIMESTAMP, secret: SECRET })).toBe(
      `v0=${hex}`,
    );
  });

  it("passes a request signed with the secret within the five minutes", () => {
    expect(verify(`v0=${hex}`)).toEqual({ ok: true });
    expect(verify(`v0=${hex}`, { nowS: NOW_S + 300 })).toEqual({ ok: true });
    expect(verify(`v0=${hex}`, { nowS: NOW_S - 300 })).toEqual({ ok: true });
  });

  it("refuses a timestamp more than five minutes off either way, even when correctly signed", () => {
    expect(verify(`v0=${hex}`, { nowS: NOW_S + 600 })).toMatchObject({ ok: false, reason: "stale" });
    expect(verify(`v0=${hex}`, { nowS: NOW_S + 301 })).toMatchObject({ ok: false, reason: "stale" });
    expect(verify(`v0=${hex}`, { nowS: NOW_S - 301 })).toMatchObject({ ok: false, reason: "stale" });
  });

  it("refuses a signature made with another secret, over another body, or under another timestamp", () => {
    const other = createHmac("sha256", "another-secret-0123456789")
      .update(`v0:${TIMESTAMP}:`)
      .update(body)
      .digest("hex");
    expect(verify(`v0=${other}`)).toMatchObject({ ok: false, reason: "mismatch" });
    expect(verify(`v0=${hex}`, { raw: new TextEncoder().encode("payload=%7B%7D") })).toMatchObject({
      ok: false,
      reason: "mismatch",
    });
    // The same signature moved to a fresh timestamp: the timestamp is signed too.
    expect(verify(`v0=${hex}`, { timestamp: String(NOW_S + 1) })).toMatchObject({ ok: false, reason: "mismatch" });
  });

  it("refuses missing headers, and values that are no v0 digest or no Unix seconds", () => {
    expect(verify(undefined)).toMatchObject({ ok: false, reason: "missing" });
    expect(verify(`v0=${hex}`, { timestamp: undefined })).toMatchObject({ ok: false, reason: "missing" });
    expect(verify(" ")).toMatchObject({ ok: false, reason: "missing" });
    expect(verify(`v1=${hex}`)).toMatchObject({ ok: false, reason: "malformed" });
    expect(verify(`v0=${hex.slice(2)}`)).toMatchObject({ ok: false, reason: "malformed" });
    expect(verify(`v0=${hex}`, { timestamp: "1764700000.5" })).toMatchObject({ ok: false, reason: "malformed" });
    expect(verify(`v0=${hex}`, { timestamp: "soon" })).toMatchObject({ ok: false, reason: "malformed" });
  });
});
