import { EventEmitter } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { afterAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { parseCliArgs } from "../../src/cli/args.js";
import { promptBusyChoice } from "../../src/cli/pause/multitask-prompt.js";
import { createPrompter } from "../../src/cli/prompter.js";
import { runCli } from "../../src/cli/run-cli.js";
import { createStyle } from "../../src/cli/output/style.js";
import { ThreadBusyError } from "../../src/contracts/errors.js";
import type { AgentStateType } from "../../src/graph/state.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { answerMessage, callsMessage, ScriptedChatModel, type ScriptedCall } from "../fixtures/scripted-model.js";
import { Gate, lastAsk } from "../fixtures/gate-tool.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-cli-multitask-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const style = createStyle(false);
const user = { id: "local", role: "admin" };

/** "slow …" calls the gate; anything else is answered. */
function respond(call: ScriptedCall) {
  const ask = lastAsk(call.messages);
  if (ToolMessage.isInstance(call.messages.at(-1))) return answerMessage(`done: ${ask}`);
  if (ask.startsWith("slow")) return callsMessage([{ name: "gate", args: { query: ask } }]);
  return answerMessage(`answer: ${ask}`);
}

/** An app on `file` with the gate, as the CLI and another process would open it. */
function appOn(file: string, tool: ReturnType<Gate["tool"]>): App {
  return createApp({
    env: loadEnv({}),
    dbPath: join(directory, file),
    model: new ScriptedChatModel({ script: Array.from({ length: 20 }, () => respond) }),
    tools: () => [tool],
  });
}

/** Runs the CLI in this process over `file`; `stdout` collects what it printed. */
function cli(argv: string[], file: string, tool: ReturnType<Gate["tool"]>, input: string) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  const seen: Array<{ text: string; resolve: () => void }> = [];
  const watch = () => {
    for (const waiter of [...seen]) if (out.includes(waiter.text)) waiter.resolve();
  };
  stdout.on("data", (chunk: Buffer) => ((out += chunk.toString()), watch()));
  stderr.on("data", (chunk: Buffer) => ((err += chunk.toString()), watch()));
  stdin.end(input);
  const done = runCli({ argv, stdin, stdout, stderr, createApp: () => appOn(file, tool), signals: new EventEmitter() });
  return {
    done,
    output: () => ({ out, err }),
    /** Resolves once stdout shows `text`. */
    printed: (text: string) => new Promise<void>((resolve) => (seen.push({ text, resolve }), watch())),
  };
}

const stateOf = async (app: App, threadId: string) =>
  (await app.graph.getState({ configurable: { thread_id: threadId } })).values as AgentStateType;

describe("the CLI meets a thread that is running", () => {
  it("--multitask interrupt stops the run another process drives and answers the question", async () => {
    const gate = new Gate();
    const tool = gate.tool();
    const holder = appOn("flag.sqlite", tool);
    try {
      const threadId = await holder.runtime.createThread(user);
      const running = collectEvents(await holder.runtime.startRun({ threadId, message: "slow first", user }));
      await gate.entered;
      const run = cli(["ask", "--thread", threadId, "now this", "--multitask", "interrupt"], "flag.sqlite", tool, "");
      expect(await run.done).toBe(0);
      expect(run.output().out).toContain("answer: now this");
      expect((await running).at(-1)).toMatchObject({ type: "run_finished", stopReason: "cancelled" });
      const asks = (await stateOf(holder, threadId)).messages.filter((message) => HumanMessage.isInstance(message));
      expect(asks.map((message) => message.content)).toEqual(["slow first", "now this"]);
    } finally {
      await holder.close();
    }
  });

  it("asks wait / interrupt / cancel in a chat, and on w waits in the queue and runs the question after the run", async () => {
    const gate = new Gate();
    const tool = gate.tool();
    const holder = appOn("prompt.sqlite", tool);
    try {
      const threadId = await holder.runtime.createThread(user);
      const running = collectEvents(await holder.runtime.startRun({ threadId, message: "slow first", user }));
      await gate.entered;
      const run = cli(["chat", "--thread", threadId], "prompt.sqlite", tool, "queued one\nw\n");
      await run.printed("Queued (position 1)");
      expect(run.output().err).toContain("The thread is running another run.");
      expect(run.output().out).toContain("send [w/i/c] › w");
      gate.open();
      expect((await running).at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
      expect(await run.done).toBe(0);
      expect(run.output().out).toContain("answer: queued one");
      const asks = (await stateOf(holder, threadId)).messages.filter((message) => HumanMessage.isInstance(message));
      expect(asks.map((message) => message.content)).toEqual(["slow first", "queued one"]);
    } finally {
      await holder.close();
    }
  });
});

describe("--multitask and the busy prompt", () => {
  it("parses --multitask and refuses an unknown strategy", () => {
    expect(parseCliArgs(["ask", "hi", "--multitask", "enqueue"]).multitask).toBe("enqueue");
    expect(parseCliArgs(["ask", "hi"]).multitask).toBeUndefined();
    expect(() => parseCliArgs(["ask", "hi", "--multitask", "rollback"])).toThrow(
      '--multitask must be one of reject, enqueue, interrupt (got "rollback").',
    );
  });

  it("asks again on an unknown answer and treats c as cancel", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const prompter = createPrompter({ input, output, terminal: false });
    input.end("x\ni\n");
    const printed: string[] = [];
    const io = { prompter, write: (line: string) => printed.push(line), style };
    expect(await promptBusyChoice(new ThreadBusyError("t1"), io)).toBe("interrupt");
    expect(printed).toContain('Answer w (wait), i (interrupt) or c (cancel); got "x".');
    prompter.close();
    const second = createPrompter({ input: new PassThrough({}).end("c\n") as PassThrough, output, terminal: false });
    expect(await promptBusyChoice(new ThreadBusyError("t1"), { ...io, prompter: second })).toBeUndefined();
    second.close();
  });
});
