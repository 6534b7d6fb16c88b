import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_CHARS } from "../../../src/contracts/limits.js";
import { firstMessage, runbookSection, runbookSections } from "../../../src/service/incidents/briefing.js";
import { parseRunbook } from "../../../src/tools/runbooks/markdown.js";

const RUNBOOK = `---
title: Payment errors
alerts: [PaymentErrorsHigh]
---
Check the gateway first.

## Mitigation

1. Restart payment-service.
`;

describe("an incident's first message", () => {
  const file = parseRunbook("payments/errors.md", RUNBOOK).file!;

  it("puts a runbook that lists the alert after the alert, with its title, path and sections", () => {
    expect(runbookSection(file)).toBe(
      'Runbook "Payment errors" (payments/errors.md) lists this alert:\n' +
        "Check the gateway first.\n\n## Mitigation\n1. Restart payment-service.",
    );
    expect(firstMessage("Alert fires.", [runbookSection(file)])).toBe(`Alert fires.\n\n${runbookSection(file)}`);
  });

  it("keeps at most two runbooks and cuts a long one", () => {
    const long = parseRunbook("long.md", `# Long\n\n${"word ".repeat(2_000)}`).file!;
    const sections = runbookSections([long, file, file]);
    expect(sections).toHaveLength(2);
    expect(sections[0]!.length).toBeLessThan(2_700);
    expect(sections[0]!.endsWith("…")).toBe(true);
  });

  it("stays within the message limit, keeping the alert whole and cutting the sections", () => {
    const alert = "A".repeat(MAX_MESSAGE_CHARS - 1_000);
    const text = firstMessage(alert, ["B ".repeat(2_000), "C ".repeat(2_000)]);
    expect(text.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(text.startsWith(alert)).toBe(true);
    expect(text).toContain("B B");
    expect(text).not.toContain("C C");
  });
});
