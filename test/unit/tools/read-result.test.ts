import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolMessage } from "@langchain/core/messages";
import { createReadResultTool, type ResultPage } from "../../../src/tools/read-result.js";
import { toolMessage } from "../../../src/execution/tool-message.js";
import { maskValue } from "../../../src/execution/sanitize.js";
import { answerMessage, callsMessage, type ScriptStep } from "../../fixtures/scripted-model.js";
import { defineTool } from "../../../src/tools/types.js";
import { createHarness } from "../../fixtures/harness.js";

let close: (() => void) | undefined;
afterEach(() => close?.());

/** About `bytes` of log lines in English and Chinese, with quotes, newlines and masked contacts to escape. */
function bigLogs(bytes: number) {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i += 1) {
    const line =
      i % 3 === 0
        ? `2026-11-30T08:${String(i % 60).padStart(2, "0")}:00Z ERROR 支付服务 请求 ${i} 失败："数据库连接池耗尽"\t（PAY-5031）`
        : `2026-11-30T08:${String(i % 60).padStart(2, "0")}:00Z WARN payment-service "slow" request ${i}\nowner alice${i}@example.com 🚀`;
    lines.push(line);
    size += Buffer.byteLength(line);
  }
  return { service: "payment-service", lines };
}

const context = (threadId: string, observationMaxChars = 4_000) => ({
  signal: new AbortController().signal,
  idempotencyKey: `${threadId}:r`,
  threadId,
  callId: "r",
  user: { id: "tester", role: "operator" },
  observationMaxChars,
});

describe("read_result", () => {
  it("pages a 1 MB result in order, every page under the cap, with nothing lost", async () => {
    const stored = maskValue(bigLogs(1_000_000));
    const tool = createReadResultTool({
      getResult: async (threadId, callId) =>
        threadId === "t1" && callId === "big" ? { tool: "search_logs", raw: stored } : undefined,
    });
    // What the model first sees: a preview whose note says where to read on.
    const first = toolMessage({
      callId: "big",
      tool: "search_logs",
      observation: { ok: true, data: stored },
      durationMs: 1,
      attempts: 1,
      maxChars: 4_000,
    });
    const preview = JSON.parse(String(first.content)) as { data: string; note: string };
    const note = /"callId":"big","offset":(\d+)/.exec(preview.note);
    expect(note).not.toBeNull();
    let offset = Number(note![1]);
    expect(offset).toBe(preview.data.length);

    const texts = [preview.data];
    for (let page = 0; page < 1_000; page += 1) {
      const data = (await tool.run({ callId: "big", offset }, context("t1"))) as ResultPage;
      const message = toolMessage({
        callId: `r${page}`,
        tool: "read_result",
        observation: { ok: true, data },
        durationMs: 0,
        attempts: 1,
        maxChars: 4_000,
      });
      const seen = JSON.parse(String(message.content)) as { data: ResultPage; truncated?: unknown };
      expect(String(message.content).length).toBeLessThanOrEqual(4_000);
      expect(seen.truncated).toBeUndefined();
      expect(seen.data.offset).toBe(offset);
      expect(seen.data.text.length).toBeGreaterThan(3_000 / 6);
      texts.push(seen.data.text);
      offset = seen.data.nextOffset;
      if (seen.data.done) break;
    }
    const whole = JSON.stringify(stored);
    expect(offset).toBe(whole.length);
    expect(texts.join("")).toBe(whole);
    expect(JSON.parse(texts.join(""))).toEqual(stored);
  }, 60_000);

  it("reads only results of its own thread", async () => {
    const tool = createReadResultTool({
      getResult: async (threadId, callId) =>
        threadId === "t1" && callId === "c1" ? { tool: "t", raw: "secret plan" } : undefined,
    });
    await expect(tool.run({ callId: "c1", offset: 0 }, context("t2"))).rejects.toMatchObject({
      errorCode: "not_found",
    });
    await expect(tool.run({ callId: "c1", offset: 99 }, context("t1"))).rejects.toMatchObject({
      errorCode: "invalid_args",
    });
    expect(await tool.run({ callId: "c1", offset: 0, limit: 100 }, context("t1"))).toEqual({
      callId: "c1",
      tool: "t",
      offset: 0,
      nextOffset: 13,
      totalChars: 13,
      done: true,
      text: '"secret plan"',
    });
  });

  it("lets the model page a big result through the loop, following each note and nextOffset", async () => {
    const logs = defineTool({
      name: "dump_logs",
      description: "All log lines.",
      schema: z.object({}),
      readOnly: true,
      risk: "low",
      timeoutMs: 2_000,
      run: async () => bigLogs(150_000),
    });
    const texts: string[] = [];
    const follow: ScriptStep = ({ messages }) => {
      const last = messages.at(-1)!;
      if (!ToolMessage.isInstance(last)) return callsMessage([{ name: "dump_logs", id: "dump" }]);
      const seen = JSON.parse(String(last.content)) as { data: unknown; note?: string };
      if (last.name === "dump_logs") {
        texts.push(seen.data as string);
        const offset = Number(/"offset":(\d+)/.exec(seen.note ?? "")?.[1]);
        return callsMessage([{ name: "read_result", args: { callId: "dump", offset } }]);
      }
      const page = seen.data as ResultPage;
      texts.push(page.text);
      return page.done
        ? answerMessage("read it all")
        : callsMessage([{ name: "read_result", args: { callId: "dump", offset: page.nextOffset } }]);
    };
    const harness = createHarness({
      tools: [logs],
      readResult: true,
      script: Array.from({ length: 60 }, () => follow),
      options: { maxSteps: 60, observationMaxChars: 12_000, maxWallTimeMs: 60_000 },
    });
    close = harness.close;
    const { threadId, events } = await harness.ask("read every log line");
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    const stored = await harness.storage.getResult(threadId, "dump");
    expect(texts.join("")).toBe(JSON.stringify(stored!.raw));
    expect(harness.violations).toEqual([]);
  }, 60_000);
});
