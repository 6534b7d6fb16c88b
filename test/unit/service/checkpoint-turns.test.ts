import { describe, expect, it } from "vitest";
import { MemorySaver } from "@langchain/langgraph";
import { watchCheckpoints } from "../../../src/service/checkpoint-watch.js";
import { checkpointWith } from "../../fixtures/checkpoints.js";

/** Counts event-loop iterations while a test runs. */
function iterations() {
  let count = 0;
  let ticking = true;
  const tick = () => {
    count += 1;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => count, stop: () => (ticking = false) };
}

const config = (threadId: string, checkpointNs = "") => ({
  configurable: { thread_id: threadId, checkpoint_ns: checkpointNs },
});

const metadata = (step: number) => ({ source: "loop" as const, step, parents: {} });

describe("checkpoint saves take turns", () => {
  it("ends a run's turn at each saved checkpoint: runs go on one at a time, first saved first served", async () => {
    const saver = new MemorySaver();
    const watch = watchCheckpoints(saver);
    const loop = iterations();
    const log: Array<[string, number]> = [];
    // Runs the runtime drives, as driveRun registers them.
    for (const threadId of ["a", "b"]) watch.beforeSaves(threadId, () => undefined);
    const run = async (threadId: string) => {
      for (let step = 0; step < 3; step++) {
        await saver.put(config(threadId), checkpointWith(`${threadId}-${step}`, []), metadata(step));
        log.push([`${threadId}:${step}`, loop.now()]);
      }
    };
    await Promise.all([run("a"), run("b")]);
    loop.stop();
    // Neither run finishes its steps before the other has had its turn.
    expect(log.map(([name]) => name)).toEqual(["a:0", "b:0", "a:1", "b:1", "a:2", "b:2"]);
    // One turn per iteration: the sockets are polled between any two steps.
    expect(new Set(log.map(([, at]) => at)).size).toBe(log.length);
  });

  it("does not hold a run until its message is saved, and announces it before the run goes on", async () => {
    const saver = new MemorySaver();
    const watch = watchCheckpoints(saver);
    const loop = iterations();
    const log: string[] = [];
    for (const threadId of ["busy", "new"]) watch.beforeSaves(threadId, () => undefined);
    const busy = (async () => {
      for (let step = 0; step < 2; step++) {
        await saver.put(config("busy"), checkpointWith(`busy-${step}`, []), metadata(step));
        log.push(`busy:${step}`);
      }
    })();
    const wait = watch.untilSaved("new", "m1", async () => {
      log.push("announced");
    });
    // The input checkpoint (the message still in LangGraph's input channel) and a subgraph's save go on at once.
    await saver.put(config("new"), checkpointWith("new-input", []), metadata(-1));
    log.push("new:input");
    await saver.put(config("new", "child"), checkpointWith("new-child", [{ id: "m1" }]), metadata(0));
    log.push("new:child");
    const at = loop.now();
    await saver.put(config("new"), checkpointWith("new-0", [{ id: "m1" }]), metadata(0));
    log.push("new:0");
    await busy;
    loop.stop();
    expect(await wait.saved).toBe(true);
    // The announcement came before any other run's turn; the run itself goes on in its own later turn.
    expect(log).toEqual(["new:input", "new:child", "announced", "busy:0", "new:0", "busy:1"]);
    expect(loop.now()).toBeGreaterThan(at);
  });

  it("lets a graph invoked directly save without taking turns, and stops a run's turns when it ends", async () => {
    const saver = new MemorySaver();
    const watch = watchCheckpoints(saver);
    const loop = iterations();
    const stop = watch.beforeSaves("driven", () => undefined);
    await saver.put(config("driven"), checkpointWith("driven-0", []), metadata(0));
    const afterTurn = loop.now();
    expect(afterTurn).toBeGreaterThan(0);
    stop();
    for (let step = 1; step < 4; step++)
      await saver.put(config("driven"), checkpointWith(`driven-${step}`, []), metadata(step));
    for (let step = 0; step < 3; step++)
      await saver.put(config("direct"), checkpointWith(`direct-${step}`, []), metadata(step));
    // Six saves in the same event-loop iteration: none of them waited for a turn.
    expect(loop.now()).toBe(afterTurn);
    loop.stop();
  });

  it("lets the graph go on when the announcement fails: the run reports it", async () => {
    const saver = new MemorySaver();
    const watch = watchCheckpoints(saver);
    const wait = watch.untilSaved("t", "m1", () => Promise.reject(new Error("disk full")));
    await expect(saver.put(config("t"), checkpointWith("c1", [{ id: "m1" }]), metadata(0))).resolves.toBeDefined();
    expect(await wait.saved).toBe(true);
  });
});
