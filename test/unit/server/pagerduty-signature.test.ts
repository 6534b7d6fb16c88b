import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  parseSignatureHeader,
  signPagerdutyBody,
  verifyPagerdutySignature,
} from "../../../src/server/incidents/pagerduty-signature.js";

const SECRET = "pd-signing-secret-0123456789abcdef";
const body = new TextEncoder().encode('{"event":{"id":"e1","title":"Zahlungsdienst fällt aus — 支付服务"}}');
const hex = createHmac("sha256", SECRET).update(body).digest("hex");
const other = createHmac("sha256", "the-old-secret-0123456789").update(body).digest("hex");

const verify = (header: string | undefined, raw: Uint8Array = body) =>
  verifyPagerdutySignature({ body: raw, header, secret: SECRET });

describe("X-PagerDuty-Signature", () => {
  it("signs the raw bytes as v1=<hex HMAC-SHA256>, as PagerDuty does", () => {
    expect(signPagerdutyBody(body, SECRET)).toBe(`v1=${hex}`);
    expect(signPagerdutyBody(new TextDecoder().decode(body), SECRET)).toBe(`v1=${hex}`);
  });

  it("reads every v1 value of a comma-separated header and leaves out other versions and non-digests", () => {
    const parsed = parseSignatureHeader(`v1=${other}, v1=${hex.toUpperCase()},v2=${hex},v1=abc,garbage,v1=`);
    expect(parsed.map((digest) => digest.toString("hex"))).toEqual([other, hex]);
  });

  it("passes a body signed with the secret", () => {
    expect(verify(`v1=${hex}`)).toEqual({ ok: true });
  });

  it("passes while a secret is rotated, whichever of the values matches", () => {
    expect(verify(`v1=${other},v1=${hex}`)).toEqual({ ok: true });
    expect(verify(`v1=${hex},v1=${other}`)).toEqual({ ok: true });
  });

  it("refuses a missing or blank header, naming it", () => {
    expect(verify(undefined)).toMatchObject({ ok: false, reason: "missing" });
    expect(verify("  ")).toMatchObject({ ok: false, reason: "missing" });
  });

  it("refuses a header without a v1 digest", () => {
    expect(verify(`v2=${hex}`)).toMatchObject({ ok: false, reason: "malformed" });
    expect(verify(`v1=${hex.slice(0, 62)}`)).toMatchObject({ ok: false, reason: "malformed" });
    expect(verify(`sha256=${hex}`)).toMatchObject({ ok: false, reason: "malformed" });
  });

  it("refuses a signature of another secret or of another body", () => {
    expect(verify(`v1=${other}`)).toMatchObject({ ok: false, reason: "mismatch" });
    const tampered = new TextEncoder().encode('{"event":{"id":"e2"}}');
    expect(verify(`v1=${hex}`, tampered)).toMatchObject({ ok: false, reason: "mismatch" });
  });

  it("checks the exact bytes: a body re-encoded differently does not pass", () => {
    const spaced = new TextEncoder().encode(JSON.stringify(JSON.parse(new TextDecoder().decode(body)), null, 1));
    expect(verify(`v1=${hex}`, spaced)).toMatchObject({ ok: false, reason: "mismatch" });
  });
});
