import { execFile } from "node:child_process";
import { getEventListeners } from "node:events";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { GraphInterrupt } from "@langchain/langgraph";
import { runCall } from "../../../src/execution/call-tool.js";
import { defineTool } from "../../../src/tools/types.js";
import { tsEntry } from "../../fixtures/ts-children.js";

const context = { threadId: "t1", callId: "c1", idempotencyKey: "t1:c1", user: { id: "u", role: "operator" } };

const toolThat = (run: (signal: AbortSignal) => Promise<unknown>, timeoutMs = 50) =>
  defineTool({
    name: "probe",
    description: "A tool whose behaviour the test decides.",
    schema: z.object({}),
    readOnly: true,
    risk: "low",
    timeoutMs,
    run: (_args, ctx) => run(ctx.signal),
  });

describe("runCall", () => {
  it("ends a tool that ignores its signal as a timeout after one retry, without waiting for it", async () => {
    const tool = toolThat(() => new Promise(() => undefined), 30);
    const outcome = await runCall({ tool, args: {}, context, signal: new AbortController().signal });
    expect(outcome).toMatchObject({
      kind: "observation",
      attempts: 2,
      observation: { ok: false, errorCode: "timeout", message: "probe did not answer within 30 ms." },
    });
  });

  it("ends a cancelled call as cancelled, even when the tool throws its own abort error", async () => {
    const controller = new AbortController();
    const tool = toolThat(
      (signal) =>
        new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("AbortError: raw")))),
      5_000,
    );
    setTimeout(() => controller.abort(new Error("cancelled by the user")), 10);
    const outcome = await runCall({ tool, args: {}, context, signal: controller.signal });
    expect(outcome).toMatchObject({
      kind: "observation",
      attempts: 1,
      observation: { ok: false, errorCode: "cancelled", message: "probe was cancelled." },
    });
  });

  it("tells the tool why its signal fired, and leaves no listener on the run's signal", async () => {
    const reasons: unknown[] = [];
    const hangs = toolThat(
      (signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => {
            reasons.push(signal.reason);
            reject(signal.reason as Error);
          }),
        ),
      20,
    );
    const run = new AbortController();
    await runCall({ tool: hangs, args: {}, context, signal: run.signal });
    expect(reasons.map((reason) => (reason as DOMException).name)).toEqual(["TimeoutError", "TimeoutError"]);
    const answers = toolThat(() => Promise.resolve({ rows: [] }));
    await runCall({ tool: answers, args: {}, context, signal: run.signal });
    expect(getEventListeners(run.signal, "abort")).toEqual([]);

    const cancelled = new Error("cancelled by the user");
    const waits = toolThat(
      (signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => {
            reasons.push(signal.reason);
            reject(signal.reason as Error);
          }),
        ),
      5_000,
    );
    setTimeout(() => run.abort(cancelled), 10);
    await runCall({ tool: waits, args: {}, context, signal: run.signal });
    expect(reasons.at(-1)).toBe(cancelled);
  });

  it("rethrows LangGraph control flow raised inside a tool instead of calling it an internal error", async () => {
    const tool = toolThat(() => Promise.reject(new GraphInterrupt([])));
    await expect(runCall({ tool, args: {}, context, signal: new AbortController().signal })).rejects.toBeInstanceOf(
      GraphInterrupt,
    );
  });

  it("turns any other throw into an internal observation with no internal message", async () => {
    const tool = toolThat(() => Promise.reject(new Error("connection string postgres://u:p@db/x broke")));
    const outcome = await runCall({ tool, args: {}, context, signal: new AbortController().signal });
    expect(outcome).toMatchObject({
      kind: "observation",
      observation: { ok: false, errorCode: "internal", message: "probe failed with an internal error." },
    });
  });

  it("keeps a process alive until a hung tool's time limit, so a CLI reports the timeout instead of exiting", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, tsEntry("test/fixtures/hung-tool.ts"), {
      timeout: 20_000,
    });
    expect(stdout.trim()).toBe('"timeout"');
  });
});
