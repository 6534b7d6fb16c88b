import { describe, expect, it } from "vitest";
import { modelRetryPolicy } from "../../../src/models/retry-policy.js";

const httpError = (status: number, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`${status} error`), { status, ...extra });

describe("modelRetryPolicy", () => {
  it.each([429, 500, 502, 503, 504, 408])("retries HTTP %i", (status) => {
    expect(() => modelRetryPolicy(httpError(status))).not.toThrow();
  });

  it.each([400, 401, 403, 404, 409, 413, 422])("gives up at once on HTTP %i", (status) => {
    expect(() => modelRetryPolicy(httpError(status))).toThrow(`${status} error`);
  });

  it("retries timeouts and network errors", () => {
    expect(() =>
      modelRetryPolicy(Object.assign(new Error("Request timed out."), { name: "TimeoutError" })),
    ).not.toThrow();
    expect(() => modelRetryPolicy(new Error("Connection error."))).not.toThrow();
  });

  it("gives up on a cancelled call", () => {
    expect(() => modelRetryPolicy(Object.assign(new Error("aborted"), { name: "AbortError" }))).toThrow("aborted");
  });

  it("waits as long as a 429's retry-after asks, up to a minute", () => {
    const error = httpError(429, { headers: new Headers({ "retry-after": "2" }) });
    modelRetryPolicy(error);
    expect((error as unknown as { retryAfterMs: number }).retryAfterMs).toBe(2_000);
    const millis = httpError(429, { headers: new Headers({ "retry-after-ms": "250" }) });
    modelRetryPolicy(millis);
    expect((millis as unknown as { retryAfterMs: number }).retryAfterMs).toBe(250);
    expect(() => modelRetryPolicy(httpError(429, { headers: new Headers({ "retry-after": "120" }) }))).toThrow();
  });

  it("gives up on an exhausted quota", () => {
    expect(() => modelRetryPolicy(httpError(429, { code: "insufficient_quota" }))).toThrow();
    expect(() =>
      modelRetryPolicy(
        Object.assign(httpError(429), { message: "You exceeded your current quota, check your billing details" }),
      ),
    ).toThrow();
  });
});
