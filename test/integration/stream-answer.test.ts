import { afterAll, describe, expect, it } from "vitest";
import { AssistantDeltaSchema, RunEventSchema } from "../../src/contracts/events.js";
import { createOpenAIChatModel } from "../../src/models/providers/openai-model.js";
import { createAnthropicChatModel } from "../../src/models/providers/anthropic-model.js";
import { startAnthropicServer } from "../fixtures/anthropic-server.js";
import { readSseFrames, startTestServer, type SseFrame, type TestServer } from "../fixtures/http.js";
import { slowOpenAIServer, textAnswerEvents } from "../fixtures/streaming-model.js";

const FRAGMENTS = ["The payment ", "service logged ", "42 errors, ", "mostly ", "PAY-TIMEOUT."];
const GAP_MS = 120;

const apps: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

/** Every frame of a run's SSE response, fragments included, with when it arrived. */
async function runFrames(app: TestServer, threadId: string, message: string) {
  const response = await app.client.request("POST", `/api/threads/${threadId}/runs`, { message });
  expect(response.status).toBe(200);
  const frames: Array<SseFrame & { at: number }> = [];
  for await (const frame of readSseFrames(response.body!, { withDeltas: true }))
    frames.push({ ...frame, at: performance.now() });
  return frames;
}

describe("answers streamed over SSE", { timeout: 30_000 }, () => {
  it("sends the answer as assistant_delta frames, without ids, before the complete message", async () => {
    const slow = await slowOpenAIServer(
      textAnswerEvents(FRAGMENTS, { prompt_tokens: 300, completion_tokens: 12, total_tokens: 312 }),
      GAP_MS,
    );
    const model = createOpenAIChatModel({
      model: "slow-model",
      baseURL: slow.baseURL,
      apiKey: "sk-test",
      timeoutMs: 5_000,
      maxRetries: 0,
    });
    const app = await startTestServer({ model });
    apps.push(app, slow);
    const threadId = await app.client.createThread();
    const frames = await runFrames(app, threadId, "how is the payment service?");

    const types = frames.map((frame) => frame.event);
    const deltas = frames.filter((frame) => frame.event === "assistant_delta");
    const messageIndex = types.indexOf("assistant_message");
    expect(deltas.length).toBe(FRAGMENTS.length);
    expect(types.lastIndexOf("assistant_delta")).toBeLessThan(messageIndex);
    expect(messageIndex).toBeLessThan(types.indexOf("run_finished"));
    expect(deltas.map((frame) => frame.id)).toEqual(FRAGMENTS.map(() => undefined));

    const parsed = deltas.map((frame) => AssistantDeltaSchema.strict().parse(JSON.parse(frame.data)));
    const message = RunEventSchema.parse(JSON.parse(frames[messageIndex]!.data));
    if (message.type !== "assistant_message") throw new Error("expected assistant_message");
    expect(parsed.map((delta) => delta.text).join("")).toBe(message.content);
    expect(message.content).toBe(FRAGMENTS.join(""));
    expect(parsed.every((delta) => delta.threadId === threadId && delta.runId === message.runId)).toBe(true);
    expect(parsed.every((delta) => delta.step === message.model?.step)).toBe(true);
    // Live, not replayed at the end: the first fragment came while the model was still writing.
    expect(frames[messageIndex]!.at - deltas[0]!.at).toBeGreaterThan(GAP_MS * (FRAGMENTS.length - 2));

    const recorded = await app.client.eventsAfter(threadId, 0);
    expect(recorded.map((event) => event.type)).toEqual(["run_started", "assistant_message", "run_finished"]);
    expect(recorded[1]).toMatchObject({ type: "assistant_message", content: FRAGMENTS.join("") });
    const raw = await app.client.request("GET", `/api/threads/${threadId}/events?after=0`);
    expect(await raw.text()).not.toContain("assistant_delta");
  });

  it("streams only the text of an Anthropic reply, never the streamed input of its tool call", async () => {
    const anthropic = await startAnthropicServer([
      {
        text: "Checking the logs.",
        toolUses: [{ id: "toolu_1", name: "search_logs", input: { service: "payment-service", environment: "prod" } }],
        usage: { input_tokens: 900, output_tokens: 30 },
        eventIntervalMs: 20,
      },
      {
        text: "The payment service logged errors, mostly PAY-5031.",
        usage: { input_tokens: 1_200, output_tokens: 20 },
        eventIntervalMs: 20,
      },
    ]);
    apps.push(anthropic);
    const model = createAnthropicChatModel({
      model: "claude-test",
      baseURL: anthropic.baseURL,
      apiKey: "sk-ant-test",
      timeoutMs: 5_000,
      maxRetries: 0,
    });
    const app = await startTestServer({ model });
    apps.push(app);
    const threadId = await app.client.createThread();
    const frames = await runFrames(app, threadId, "payment errors in prod?");
    const deltas = frames
      .filter((frame) => frame.event === "assistant_delta")
      .map((frame) => AssistantDeltaSchema.parse(JSON.parse(frame.data)));
    const textOfStep = (step: number) =>
      deltas
        .filter((delta) => delta.step === step)
        .map((delta) => delta.text)
        .join("");
    expect(textOfStep(1)).toBe("Checking the logs.");
    expect(textOfStep(2)).toBe("The payment service logged errors, mostly PAY-5031.");
    const types = frames.map((frame) => frame.event);
    expect(types.indexOf("tool_call")).toBeGreaterThan(types.indexOf("assistant_delta"));
    expect(types.at(-1)).toBe("run_finished");
  });

  it("streams the demo model's answer in small fragments that add up to the recorded message", async () => {
    const app = await startTestServer();
    apps.push(app);
    const threadId = await app.client.createThread();
    const frames = await runFrames(app, threadId, "check the payment service errors in prod");
    const deltas = frames
      .filter((frame) => frame.event === "assistant_delta")
      .map((frame) => AssistantDeltaSchema.parse(JSON.parse(frame.data)));
    const recorded = await app.client.eventsAfter(threadId, 0);
    const answer = recorded.find((event) => event.type === "assistant_message");
    if (answer?.type !== "assistant_message") throw new Error("expected an answer");
    expect(deltas.length).toBeGreaterThan(20);
    expect(Math.max(...deltas.map((delta) => delta.text.length))).toBeLessThan(40);
    expect(deltas.map((delta) => delta.text).join("")).toBe(answer.content);
    expect(new Set(deltas.map((delta) => delta.step))).toEqual(new Set([answer.model?.step]));
    expect(answer.content).toContain("PAY-");
  });
});
