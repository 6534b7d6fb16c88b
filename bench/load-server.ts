/**
 * The server side of the load benchmark, run as a child process so the client's own work
 * does not share the server's event loop: opspilot's real HTTP server on 127.0.0.1 (port 0)
 * with a temp SQLite file and a scripted zero-latency model. Prints `{"url":…}` once
 * listening; stops when its stdin closes, or after a hard limit.
 */
import { createApp } from "../src/app/assemble.js";
import { loadEnv } from "../src/config/env.js";
import { loadChatModel } from "../src/app/chat-model.js";
import { startServer } from "../src/server/start.js";
import { loadModel } from "./load-model.js";
import { answerLoopDelay } from "./loop-delay.js";

/** The child ends by itself after this long even if the parent never closes stdin. */
const HARD_LIMIT_MS = 150_000;

async function main(): Promise<void> {
  const [dbPath, delay = "0"] = process.argv.slice(2);
  if (!dbPath) throw new Error("usage: load-server.ts <sqlite file> [model delay ms | OpenAI-compatible base URL]");
  // A URL: the real OpenAI model client against the benchmark's streaming mock; else the scripted model.
  const openai = /^https?:/.test(delay)
    ? { OPSPILOT_MODEL: "openai:bench-model", OPENAI_BASE_URL: delay, OPENAI_API_KEY: "sk-bench" }
    : undefined;
  const env = loadEnv({ ...openai });
  const model = openai ? await loadChatModel(env) : loadModel(Number(delay));
  const app = createApp({ env, dbPath, model });
  // The load is the measurement: the per-client limit on run starts (60 a minute by default) would refuse it.
  const server = await startServer({ runtime: app.runtime, host: "127.0.0.1", port: 0, rateLimitPerMinute: 0 });
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    clearTimeout(limit);
    await server.close();
    await app.close();
    process.exit(0);
  };
  const limit = setTimeout(() => void shutdown(), HARD_LIMIT_MS);
  answerLoopDelay();
  process.stdin.on("end", () => void shutdown());
  process.stdin.on("close", () => void shutdown());
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
