import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { answerMessage, callsMessage } from "../../../src/models/scripted-model.js";
import type { RunEvent } from "../../../src/contracts/events.js";
import type { InterruptValue } from "../../../src/contracts/pause.js";
import { checkPairing, pairingHolds } from "../../../src/graph/pairing.js";
import { StopReasonSchema } from "../../../src/contracts/stop-reasons.js";
import { collectEvents } from "../../../src/service/create-runtime.js";
import { defineTool, type ToolDefinition } from "../../../src/tools/types.js";
import { createHarness } from "../../fixtures/harness.js";
import { delay, testTools } from "../../fixtures/test-tools.js";

/** The test tools, with a hang that times out fast so 500 runs stay quick. */
function tools(): ToolDefinition[] {
  const quickHang = defineTool({
    name: "hang",
    description: "Hangs.",
    schema: z.object({}),
    readOnly: true,
    risk: "low",
    timeoutMs: 5,
    run: () => new Promise(() => undefined),
  });
  const slow = defineTool({
    name: "slow",
    description: "Takes a few ms.",
    schema: z.object({ ms: z.number().describe("How long") }),
    readOnly: true,
    risk: "low",
    timeoutMs: 1_000,
    async run(args, ctx) {
      await delay(args.ms, ctx.signal);
      return { waited: args.ms };
    },
  });
  return [...testTools().filter((tool) => tool.name !== "hang" && tool.name !== "big"), quickHang, slow];
}

const call = fc.oneof(
  fc.record({ name: fc.constantFrom("read_a", "read_b"), args: fc.record({ query: fc.constantFrom("x", "y", "z") }) }),
  fc.record({ name: fc.constant("read_a"), args: fc.constant({}) }),
  fc.record({ name: fc.constantFrom("explode", "hang"), args: fc.constant({}) }),
  fc.record({ name: fc.constant("missing"), args: fc.record({ id: fc.constantFrom("1", "2") }) }),
  fc.record({ name: fc.constantFrom("nope", "read_c"), args: fc.constant({}) }),
  fc.record({ name: fc.constant("slow"), args: fc.record({ ms: fc.integer({ min: 1, max: 15 }) }) }),
  fc.record({
    name: fc.constantFrom("write_low", "write_high"),
    args: fc.record({ target: fc.constantFrom("a", "b"), environment: fc.constantFrom("prod", "staging", undefined) }),
  }),
  fc.record({ name: fc.constant("ask_midway"), args: fc.constant({}) }),
);

const scenario = fc.record({
  steps: fc.array(
    fc.oneof(
      { weight: 5, arbitrary: fc.array(call, { minLength: 1, maxLength: 3 }) },
      { weight: 1, arbitrary: fc.constant("answer" as const) },
    ),
    { minLength: 1, maxLength: 6 },
  ),
  cancelAfterMs: fc.option(fc.integer({ min: 0, max: 20 }), { freq: 3 }),
  decision: fc.constantFrom("approve", "reject"),
});

const STOP_REASONS = new Set(StopReasonSchema.options);

describe("the loop under random scripts", () => {
  it("never breaks pairing and always ends with a stop reason", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ steps, cancelAfterMs, decision }) => {
        const script = steps.map((step) =>
          step === "answer"
            ? answerMessage("done")
            : callsMessage(
                step.map((c) => ({
                  name: c.name,
                  args: Object.fromEntries(Object.entries(c.args).filter(([, v]) => v !== undefined)),
                })),
              ),
        );
        const harness = createHarness({ tools: tools(), script, onExhausted: "answer", options: { maxSteps: 5 } });
        let timer: NodeJS.Timeout | undefined;
        try {
          const threadId = await harness.runtime.createThread(harness.user);
          const stream = await harness.runtime.startRun({ threadId, message: "go", user: harness.user });
          if (cancelAfterMs !== null)
            timer = setTimeout(() => void harness.runtime.cancelRun(threadId, harness.user), cancelAfterMs);
          let events: RunEvent[] = await collectEvents(stream);
          for (let pauses = 0; pauses < 10; pauses++) {
            const finished = events.at(-1)!;
            expect(finished.type).toBe("run_finished");
            const stopReason = (finished as { stopReason: string }).stopReason;
            expect(STOP_REASONS.has(stopReason as never)).toBe(true);
            expect(stopReason).not.toBe("error");
            if (stopReason !== "interrupted") break;
            const pause = events.find((event) => event.type === "loop_interrupt") as unknown as InterruptValue;
            const decisions = pause.calls.map((waiting) => {
              const params = Object.fromEntries(
                (waiting.missing ?? []).map((field) => [field.name, field.enum?.[0] ?? "T-1"]),
              );
              return decision === "reject"
                ? { callId: waiting.callId, action: "reject" }
                : {
                    callId: waiting.callId,
                    action: "approve",
                    argsHash: waiting.argsHash,
                    ...(waiting.missing ? { params } : {}),
                  };
            });
            events = await collectEvents(
              await harness.runtime.resumeRun({ threadId, user: harness.user, resume: { decisions } }),
            );
          }
          expect(harness.violations).toEqual([]);
          const final = (await harness.state(threadId)).messages;
          expect(pairingHolds(checkPairing(final))).toBe(true);
          expect(JSON.stringify(final)).not.toMatch(/at Object\.<anonymous>|hunter22/);
        } finally {
          clearTimeout(timer);
          harness.close();
        }
      }),
      { numRuns: 500 },
    );
  }, 240_000);
});
