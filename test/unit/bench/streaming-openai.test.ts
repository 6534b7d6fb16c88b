import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../../../src/models/providers/openai-model.js";

const MOCK = fileURLToPath(new URL("../../../bench/streaming-openai.ts", import.meta.url));

describe("the realistic workload's mock model (bench/streaming-openai.ts)", () => {
  let child: ChildProcess;
  let baseURL: string;
  beforeAll(async () => {
    child = spawn(process.execPath, ["--import", "tsx", MOCK], {
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, MOCK_FIRST_PIECE_MS: "120", MOCK_PIECE_GAP_MS: "10" },
    });
    baseURL = await new Promise((resolve) =>
      createInterface({ input: child.stdout! }).once("line", (line) => resolve(JSON.parse(line).baseURL)),
    );
  }, 30_000);
  afterAll(() => {
    child.stdin!.end();
  });

  it("streams one search_docs call to a new question, then the answer in pieces, as the OpenAI client reads them", async () => {
    const model = createOpenAIChatModel({
      model: "bench-model",
      baseURL,
      apiKey: "sk-bench",
      timeoutMs: 5_000,
      maxRetries: 0,
    });
    const started = performance.now();
    const call = (await model.invoke([new HumanMessage("check payments")])) as AIMessage;
    // The first piece waits 120 ms, then 19 more 10 ms apart.
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
    expect(call.tool_calls).toEqual([
      expect.objectContaining({ name: "search_docs", args: { query: "PAY-5031 DB_POOL_EXHAUSTED connection pool" } }),
    ]);
    expect(call.usage_metadata?.output_tokens).toBe(40);
    const pieces: string[] = [];
    const history = [
      new HumanMessage("check payments"),
      call,
      new ToolMessage({ tool_call_id: call.tool_calls![0]!.id!, content: "{}" }),
    ];
    for await (const chunk of await model.stream(history)) if (chunk.text) pieces.push(chunk.text);
    expect(pieces).toHaveLength(20);
    expect(pieces.join("")).toContain("PAY-5031");
  });
});
