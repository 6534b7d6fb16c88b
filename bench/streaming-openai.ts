/**
 * A mock OpenAI-compatible model with a real model's timing, in its own process: every reply
 * streams, `FIRST_PIECE_MS` to the first piece, then `PIECES` pieces `PIECE_GAP_MS` apart. A
 * run's first request (no tool result after the last user message) gets one `search_docs`
 * call, streamed in pieces; the next one an answer. Usage comes in the last chunk. Prints
 * `{"baseURL":…}` once listening and stops when its stdin closes (or after a hard limit).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const FIRST_PIECE_MS = Number(process.env.MOCK_FIRST_PIECE_MS ?? 300);
const PIECES = Number(process.env.MOCK_PIECES ?? 20);
const PIECE_GAP_MS = Number(process.env.MOCK_PIECE_GAP_MS ?? 25);
const HARD_LIMIT_MS = 600_000;

const ANSWER = "payment-service fails on DB pool exhaustion (PAY-5031): follow runbook RB-003, raise the pool size. ";
const ARGS = JSON.stringify({ query: "PAY-5031 DB_POOL_EXHAUSTED connection pool" });

type WireMessage = { role: string };

/** Splits `text` into `count` pieces of about the same size. */
function pieces(text: string, count: number): string[] {
  const size = Math.ceil(text.length / count);
  return Array.from({ length: count }, (_, index) => text.slice(index * size, (index + 1) * size)).filter(Boolean);
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: Record<string, number>) =>
  `data: ${JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion.chunk",
    created: 1,
    model: "bench-model",
    choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  })}\n\n`;

let served = 0;

async function reply(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body = "";
  for await (const part of req) body += String(part);
  const { messages } = JSON.parse(body) as { messages: WireMessage[] };
  const lastUser = messages.findLastIndex((message) => message.role === "user");
  const callsTool = !messages.slice(lastUser + 1).some((message) => message.role === "tool");
  served += 1;
  const id = `call_${served}`;
  const events = callsTool
    ? [
        chunk({
          role: "assistant",
          content: null,
          tool_calls: [{ index: 0, id, type: "function", function: { name: "search_docs", arguments: "" } }],
        }),
        ...pieces(ARGS, PIECES - 1).map((text) => chunk({ tool_calls: [{ index: 0, function: { arguments: text } }] })),
        chunk({}, "tool_calls"),
      ]
    : [
        chunk({ role: "assistant", content: "" }),
        ...pieces(ANSWER, PIECES).map((content) => chunk({ content })),
        chunk({}, "stop"),
      ];
  const usage = { prompt_tokens: Math.ceil(body.length / 4), completion_tokens: 40, total_tokens: 0 };
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  await sleep(FIRST_PIECE_MS);
  for (const [index, event] of events.entries()) {
    if (index > 1) await sleep(PIECE_GAP_MS);
    res.write(event);
  }
  res.write(chunk({}, null, usage));
  res.end("data: [DONE]\n\n");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const server = createServer((req, res) => {
  if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
    res.writeHead(404).end();
    return;
  }
  reply(req, res).catch((error: unknown) => {
    res.writeHead(500).end(String(error));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(
    `${JSON.stringify({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` })}\n`,
  );
});
const shutdown = () => server.close(() => process.exit(0));
process.stdin.on("end", shutdown);
process.stdin.resume();
setTimeout(() => process.exit(0), HARD_LIMIT_MS).unref();
