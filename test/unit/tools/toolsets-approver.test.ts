import { z } from "zod";
import { describe, expect, it } from "vitest";
import { defineTool } from "../../../src/tools/types.js";
import { createHarness } from "../../fixtures/harness.js";
import { observationOf } from "../../fixtures/mcp-app.js";
import { callsMessage } from "../../fixtures/scripted-model.js";

/** A tool that reports who approved it, as the silence tools write it into `createdBy`. */
const whoApproved = (risk: "low" | "high") =>
  defineTool({
    name: `who_approved_${risk}`,
    description: "Reports ctx.approvedBy.",
    schema: z.object({}),
    readOnly: risk === "low",
    risk,
    timeoutMs: 1_000,
    run: async (_args, ctx) => ({ approvedBy: ctx.approvedBy ?? null, user: ctx.user.id }),
  });

describe("the approver in a tool's context", () => {
  it("is the user who answered the pause for an approved call, and absent for a call nobody approved", async () => {
    const harness = createHarness({
      tools: [whoApproved("low"), whoApproved("high")],
      onExhausted: "answer",
      user: { id: "ann", role: "operator" },
      script: [
        callsMessage([
          { name: "who_approved_low", id: "read" },
          { name: "who_approved_high", id: "write" },
        ]),
      ],
    });
    try {
      const { threadId } = await harness.ask("who approves?");
      const { messages } = await harness.resume(threadId, { decisions: [{ callId: "write", action: "approve" }] });
      expect(observationOf(messages, "read")).toMatchObject({ ok: true, data: { approvedBy: null, user: "ann" } });
      expect(observationOf(messages, "write")).toMatchObject({ ok: true, data: { approvedBy: "ann", user: "ann" } });
    } finally {
      harness.close();
    }
  });
});
