/**
 * The stack's floor for the realistic workload: what the libraries opspilot stands on cost a
 * run when nothing of opspilot runs. LangGraph's own prebuilt agent (`createReactAgent`) with
 * the stock `ChatOpenAI` against the same streaming mock, one `search_docs` tool that returns a
 * constant, LangGraph's in-memory `MemorySaver`, served on the same framework as opspilot's server
 * (hono on `@hono/node-server`) with opspilot's run API and frames: `run_started`, the tool call
 * and its result, the answer's text as `assistant_delta` frames (LangGraph's `messages` stream
 * mode), the answer and `run_finished`. No roles, guard, validation, pauses, masking, journal,
 * records, events table, context budget or SQLite. Speaks `load-server.ts`'s protocol: argv[2]
 * is the mock's base URL; prints `{"url":…}` once listening, answers `cpu` lines, stops when
 * stdin closes.
 */
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";
import { runApi, serveChild } from "./serve-child.js";

/** The child ends by itself after this long even if the parent never closes stdin. */
const HARD_LIMIT_MS = 600_000;

const baseURL = process.argv[2];
if (!baseURL) throw new Error("usage: stack-floor-server.ts <OpenAI-compatible base URL>");

const searchDocs = tool(async ({ query }) => JSON.stringify({ ok: true, query, results: [{ ref: "RB-003" }] }), {
  name: "search_docs",
  description: "Searches the runbooks.",
  schema: z.object({ query: z.string().describe("What to look for.") }),
});
// No `streaming` flag: LangGraph's `messages` mode makes the model stream, without the stock
// token estimate that would load tiktoken's tables (offline here); usage comes from the stream.
const model = new ChatOpenAI({
  model: "bench-model",
  apiKey: "sk-bench",
  configuration: { baseURL },
  streamUsage: true,
});
const agent = createReactAgent({ llm: model, tools: [searchDocs], checkpointer: new MemorySaver() });

const app = runApi(async ({ message, threadId }, { send, delta }) => {
  const parts = await agent.stream(
    { messages: [new HumanMessage(message)] },
    { configurable: { thread_id: threadId }, streamMode: ["updates", "messages"], recursionLimit: 10 },
  );
  for await (const [mode, chunk] of parts) {
    if (mode === "messages") {
      const [piece] = chunk as [unknown, unknown];
      if (AIMessageChunk.isInstance(piece) && typeof piece.content === "string" && piece.content)
        await delta(piece.content);
      continue;
    }
    for (const update of Object.values(chunk as Record<string, { messages?: unknown[] }>))
      for (const written of update.messages ?? []) {
        if (AIMessage.isInstance(written) && written.tool_calls?.length)
          for (const call of written.tool_calls)
            await send("tool_call", { callId: call.id, tool: call.name, args: call.args });
        else if (AIMessage.isInstance(written))
          await send("assistant_message", { messageId: written.id, content: written.content });
        else if (ToolMessage.isInstance(written))
          await send("tool_result", { callId: written.tool_call_id, tool: written.name, ok: true });
      }
  }
  await send("run_finished", { stopReason: "final_answer" });
});

serveChild(app, HARD_LIMIT_MS);
