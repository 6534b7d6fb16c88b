/**
 * The process the many-paused-threads measure runs in (started with --expose-gc, so RSS is read
 * after a full collection): opspilot's runtime on a temp SQLite file with a scripted model that
 * asks to restart a service, a high-risk call that pauses for approval. Pauses `few` threads,
 * times resumes, pauses `many` more, reads RSS and times resumes again; prints one JSON line.
 */
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createApp } from "../src/app/assemble.js";
import { loadEnv } from "../src/config/env.js";
import { ScriptedChatModel, answerMessage, callsMessage, type ScriptedCall } from "../test/fixtures/scripted-model.js";
import { collectEvents } from "../src/service/events/recorded-events.js";

const user = { id: "bench", role: "operator" };
/** Threads paused at once while the pauses are opened. */
const BATCH = 20;

function plan(call: ScriptedCall) {
  const lastUser = call.messages.findLastIndex((message: BaseMessage) => HumanMessage.isInstance(message));
  const answered = call.messages.slice(lastUser + 1).some((message) => ToolMessage.isInstance(message));
  if (!answered)
    return callsMessage([{ name: "restart_service", args: { service: "payment-service", environment: "prod" } }]);
  return answerMessage("The restart was not approved; nothing changed.");
}

async function main(): Promise<void> {
  const [dbPath, fewText, manyText, resumesText] = process.argv.slice(2);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!dbPath || !gc) throw new Error("usage: node --expose-gc paused-threads-child.ts <db> <few> <many> <resumes>");
  const [few, many, resumes] = [Number(fewText), Number(manyText), Number(resumesText)];
  const model = new ScriptedChatModel({
    script: Array.from({ length: (few + many + 8 * resumes) * 2 + 10 }, () => plan),
  });
  const app = createApp({ env: loadEnv({}), dbPath, model });
  const paused: Array<{ threadId: string; callId: string; argsHash: string }> = [];
  const pauseOne = async () => {
    const threadId = await app.runtime.createThread(user);
    const events = await collectEvents(
      await app.runtime.startRun({ threadId, message: "Restart the payment service in prod.", user }),
    );
    const pause = events.find((event) => event.type === "loop_interrupt");
    if (pause?.type !== "loop_interrupt") throw new Error("the run did not pause for approval");
    paused.push({ threadId, callId: pause.calls[0]!.callId, argsHash: pause.calls[0]!.argsHash });
  };
  const pauseMany = async (count: number) => {
    for (let done = 0; done < count; done += BATCH)
      await Promise.all(Array.from({ length: Math.min(BATCH, count - done) }, pauseOne));
  };
  const resumeOne = async (): Promise<number> => {
    const { threadId, callId, argsHash } = paused.shift()!;
    const started = performance.now();
    const resume = { decisions: [{ callId, argsHash, action: "reject" as const }] };
    const finished = (await collectEvents(await app.runtime.resumeRun({ threadId, resume, user }))).at(-1);
    if (finished?.type !== "run_finished" || finished.stopReason !== "final_answer")
      throw new Error(`the resumed run did not answer: ${JSON.stringify(finished)}`);
    return performance.now() - started;
  };
  const settle = () => {
    gc();
    gc();
    return process.memoryUsage();
  };
  // Each level is timed after the same few untimed resumes and a full GC, so neither pays for
  // warming the resume path or for the burst of pauses just before it.
  const warmups = 3 * resumes;
  const timeLevel = async (): Promise<number[]> => {
    for (let i = 0; i < resumes; i += 1) await resumeOne();
    settle();
    const times: number[] = [];
    for (let i = 0; i < resumes; i += 1) times.push(await resumeOne());
    return times;
  };
  await pauseMany(few + warmups + 2 * resumes);
  for (let i = 0; i < warmups; i += 1) await resumeOne();
  const fewResume = await timeLevel();
  const atFew = settle();
  const started = performance.now();
  await pauseMany(many - few + 2 * resumes);
  const pauseMs = performance.now() - started;
  const manyResume = await timeLevel();
  // Read after the level's resumes, as at the few level: a reading taken straight after the burst
  // of pauses also counts what that burst freed and the allocator has not handed back yet.
  const atMany = settle();
  await app.close();
  const rssFew = atFew.rss;
  const rssMany = atMany.rss;
  // What the JS objects still hold, beside RSS, which also counts memory freed but not yet returned to the system.
  const heapFew = atFew.heapUsed + atFew.external;
  const heapMany = atMany.heapUsed + atMany.external;
  process.stdout.write(`${JSON.stringify({ rssFew, rssMany, heapFew, heapMany, pauseMs, fewResume, manyResume })}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
