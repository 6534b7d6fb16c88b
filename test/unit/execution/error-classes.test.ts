import { describe, expect, it } from "vitest";
import { ERROR_CLASSES, carriesToolContent, errorCodesWith, RETRYABLE } from "../../../src/contracts/error-codes.js";
import { failedStepsAfter } from "../../../src/graph/guard.js";

const sorted = (codes: Iterable<string>) => [...codes].sort();

describe("the error-class table", () => {
  it("retries only transient, timeout and rate_limited failures of read tools", () => {
    expect(sorted(RETRYABLE)).toEqual(["rate_limited", "timeout", "transient"]);
  });

  it("leaves the run of failed steps alone for rejections, expired approvals, cancels and skips", () => {
    const notCounted = Object.entries(ERROR_CLASSES).filter(([, entry]) => !entry.countsAsFailure);
    expect(sorted(notCounted.map(([code]) => code))).toEqual([
      "approval_expired",
      "cancelled",
      "rejected_by_user",
      "skipped",
    ]);
    expect(failedStepsAfter(2, [{ ok: false, errorCode: "approval_expired" }])).toBe(2);
    expect(failedStepsAfter(2, [{ ok: false, errorCode: "outcome_unknown" }])).toBe(3);
    expect(failedStepsAfter(2, [{ ok: false }])).toBe(3);
  });

  it("offers fallbacks only after failures that are the tool's or its backend's", () => {
    expect(sorted(errorCodesWith("fallback"))).toEqual([
      "internal",
      "not_found",
      "rate_limited",
      "timeout",
      "transient",
    ]);
  });

  it("treats only not_found, transient and internal failures as the tool's own content", () => {
    const content = Object.keys(ERROR_CLASSES).filter((code) => carriesToolContent(code as keyof typeof ERROR_CLASSES));
    expect(sorted(content)).toEqual(["internal", "not_found", "transient"]);
    expect(carriesToolContent(undefined)).toBe(true);
  });

  it("records a rejected or expired approval as rejected, a cancel as cancelled and a skip as skipped", () => {
    const records = Object.fromEntries(Object.entries(ERROR_CLASSES).map(([code, entry]) => [code, entry.record]));
    expect(records).toMatchObject({
      rejected_by_user: "rejected",
      approval_expired: "rejected",
      cancelled: "cancelled",
      skipped: "skipped",
      timeout: "error",
      outcome_unknown: "error",
    });
  });

  it("calls refused before running exactly the codes the CLI answers with exit 2", () => {
    expect(sorted(errorCodesWith("refused"))).toEqual([
      "invalid_args",
      "permission_denied",
      "rate_limited",
      "skipped",
      "unknown_tool",
    ]);
    expect(sorted(errorCodesWith("mayHaveRun"))).toEqual(["internal", "outcome_unknown", "timeout"]);
  });
});
