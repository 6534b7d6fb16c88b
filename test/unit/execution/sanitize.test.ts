import { describe, expect, it } from "vitest";
import type { Observation } from "../../../src/contracts/observation.js";
import { boundObservation, maskSensitive, maskValue } from "../../../src/execution/sanitize.js";
import { toolMessage } from "../../../src/execution/tool-message.js";
import { DATASET } from "../../../src/demo/ops/data/index.js";

const NOTE = "Result cut to fit; the full result is stored under this call id.";
const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
/** A random-looking key with neither `/` nor `+`: caught by how often it changes character class. */
const AWS_SECRET_PLAIN = "Zq4Hk9Tb2Lm7Xc1Rv8Ns3Wd6Fp0Jg5Ya4Eu9Io2K";

describe("maskSensitive", () => {
  it.each([
    ["slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx end", "slack [token masked] end"],
    ["slack xoxp-123456789012-AbCdEfGhIjKl end", "slack [token masked] end"],
    ["google AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI end", "google [key masked] end"],
    ["stripe sk_live_51HqLyjWDarjtT1zdp7dcXnOb end", "stripe [key masked] end"],
    ["stripe rk_live_51HqLyjWDarjtT1zdp7dcXnOb end", "stripe [key masked] end"],
    ["gitlab glpat-xYz12AbCdEfGhIjKlMnO end", "gitlab [token masked] end"],
    ["github ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij end", "github [token masked] end"],
    ["github github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCD end", "github [token masked] end"],
    ["jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvcHMifQ.c2lnbmF0dXJlLXZhbHVl end", "jwt [token masked] end"],
    [
      "pem -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nq1w2e3r4\n-----END RSA PRIVATE KEY----- end",
      "pem [private key masked] end",
    ],
    ["cut pem -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA", "cut pem [private key masked]"],
    ["db postgres://app:s3cr3t-Pw@db:5432/orders ok", "db postgres://app:[masked]@db:5432/orders ok"],
    ["git https://deploy:hunter2@git.example.com/ops.git", "git https://deploy:[masked]@git.example.com/ops.git"],
    ["cache redis://:pw1234@cache:6379/0", "cache redis://:[masked]@cache:6379/0"],
    [`aws ${AWS_SECRET} end`, "aws [key masked] end"],
    [`aws ${AWS_SECRET_PLAIN} end`, "aws [key masked] end"],
    [`SECRET_KEY=${AWS_SECRET_PLAIN.toLowerCase()}`, "SECRET_KEY=[masked]"],
    ["AKIAIOSFODNN7EXAMPLE and ASIAIOSFODNN7EXAMPLE", "[key masked] and [key masked]"],
  ])("masks %j", (text, masked) => {
    expect(maskSensitive(text)).toBe(masked);
  });

  it("keeps git SHAs, UUIDs, identifiers and paths that merely look long", () => {
    const text = [
      "commit 3f786850e387550fdab836ed7e6dc881de23001b",
      "upper DA39A3EE5E6B4B0D3255BFEF95601890AFD80709",
      "trace 550e8400-e29b-41d4-a716-446655440000",
      "class AbstractSingletonProxyFactoryBean2Config",
      "path /Users/Alice2/Projects/Ops/Api/Handlers",
      "url https://git.example.com:8443/ops/api",
    ].join("\n");
    expect(maskSensitive(text)).toBe(text);
  });

  it("leaves the demo dataset untouched", () => {
    expect(maskValue(DATASET)).toEqual(JSON.parse(JSON.stringify(DATASET)));
  });

  it("does not mask a marker a second time when a key-value label precedes it", () => {
    expect(maskSensitive("token=ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij")).toBe("token=[token masked]");
  });
});

describe("maskValue", () => {
  it("masks secret-named fields whole and finds secrets at the start of a line", () => {
    expect(
      maskValue({
        password: "hunter2",
        apiKey: "k-123",
        "x-api-key": "k-456",
        SecretAccessKey: "abcd",
        input_tokens: 12,
        service: "payment-service",
        log: `line one\n${AWS_SECRET}\neyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvcHMifQ.c2lnbmF0dXJlLXZhbHVl`,
        contacts: { "alice@example.com": "on call" },
      }),
    ).toEqual({
      password: "[masked]",
      apiKey: "[masked]",
      "x-api-key": "[masked]",
      SecretAccessKey: "[masked]",
      input_tokens: 12,
      service: "payment-service",
      log: "line one\n[key masked]\n[token masked]",
      contacts: { "[email masked]": "on call" },
    });
  });
});

describe("boundObservation", () => {
  const secrets = ["alice.wong@example.com", "AKIAIOSFODNN7EXAMPLE", AWS_SECRET];
  const observation: Observation = {
    ok: true,
    data: { log: `${"y".repeat(40)} owner ${secrets[0]} key ${secrets[1]} secret ${secrets[2]} ${"z".repeat(600)}` },
  };

  it("never keeps part of a secret, wherever the cut falls", () => {
    const maskedText = JSON.stringify(maskValue(observation.data));
    const whole = JSON.stringify(maskValue(observation)).length;
    const problems: string[] = [];
    for (let maxChars = 180; maxChars < whole; maxChars += 1) {
      const { content } = boundObservation(observation, maxChars);
      const leaked = secrets.find((secret) => content.includes(secret.slice(0, 5)));
      if (leaked) problems.push(`${maxChars}: part of ${leaked}`);
      if (content.length > maxChars) problems.push(`${maxChars}: ${content.length} characters`);
      const parsed = JSON.parse(content) as { data: string; truncated: { originalChars: number; keptChars: number } };
      if (parsed.truncated.originalChars !== maskedText.length || parsed.truncated.keptChars !== parsed.data.length)
        problems.push(`${maxChars}: note says ${JSON.stringify(parsed.truncated)}`);
      if (!maskedText.startsWith(parsed.data)) problems.push(`${maxChars}: preview is not a start of the masked text`);
    }
    expect(problems).toEqual([]);
  });

  it("cuts before a mask marker rather than through it, and says exactly what was kept", () => {
    const bounded = boundObservation({ ok: true, data: { owner: "alice@example.com", text: "x".repeat(300) } }, 164);
    expect(JSON.parse(bounded.content)).toEqual({
      ok: true,
      data: '{"owner":"',
      truncated: { originalChars: 336, keptChars: 10 },
      note: NOTE,
    });
    expect(bounded.truncated).toBe(true);
  });

  it("stays under the cap when the kept text needs escaping", () => {
    const bounded = boundObservation({ ok: true, data: Array.from({ length: 400 }, () => 'a"b') }, 1_000);
    expect(bounded.content.length).toBeLessThanOrEqual(1_000);
    expect(bounded.content.length).toBeGreaterThan(990);
  });

  it("writes the same content from the caller's JSON text, right at the cap and one under it", () => {
    const data = maskValue({ owner: "alice@example.com", rows: [{ text: 'a "quoted" 😀 line' }], total: 1 });
    const masked: Observation = { ok: true, data, source: { tool: "t" }, fetchedAt: "2026-01-01T00:00:00.000Z" };
    const whole = boundObservation(masked, 100_000, "c1", true).content.length;
    for (const maxChars of [whole, whole - 1, 120, 100_000]) {
      const given = boundObservation(masked, maxChars, "c1", true, JSON.stringify(data));
      expect(given).toEqual(boundObservation(masked, maxChars, "c1", true));
      expect(given.truncated).toBe(maxChars < whole);
    }
    // Data that is not masked yet is masked, whatever text comes with it.
    const raw: Observation = { ok: true, data: { owner: "alice@example.com" } };
    expect(boundObservation(raw, 1_000, "c1", false, '{"owner":"alice@example.com"}').content).toBe(
      '{"ok":true,"data":{"owner":"[email masked]"}}',
    );
  });

  it("summarizes a text result, or a cut result's preview, by the start of its JSON, pairs kept whole", () => {
    const escaped = `${'"'.repeat(70)}${"😀".repeat(30)}${"x".repeat(3_000)}`;
    const plain = `${"x".repeat(150)}${"😀".repeat(30)}${"y".repeat(3_000)}`;
    for (const text of [0, 1, 2, 3].flatMap((start) => [escaped.slice(start), plain.slice(start)]))
      for (const maxChars of [1_000, 100_000]) {
        const message = toolMessage({
          callId: "c1",
          tool: "t",
          observation: { ok: true, data: text },
          durationMs: 0,
          attempts: 1,
          maxChars,
        });
        const shown = (JSON.parse(String(message.content)) as { data: string }).data;
        expect((message.artifact as { summary: string }).summary).toBe(JSON.stringify(shown).slice(0, 160));
      }
  });

  it("masks error messages and their summaries", () => {
    const message = toolMessage({
      callId: "c1",
      tool: "login",
      observation: {
        ok: false,
        errorCode: "internal",
        message: "login failed:\neyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvcHMifQ.c2lnbmF0dXJlLXZhbHVl for alice@example.com",
      },
      durationMs: 3,
      attempts: 1,
      maxChars: 2_000,
    });
    expect(JSON.parse(String(message.content))).toEqual({
      ok: false,
      errorCode: "internal",
      message: "login failed:\n[token masked] for [email masked]",
      source: { tool: "login" },
      fetchedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((message.artifact as { summary: string }).summary).toBe(
      "internal: login failed:\n[token masked] for [email masked]",
    );
  });
});
