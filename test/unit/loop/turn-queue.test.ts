import { describe, expect, it } from "vitest";
import { TurnQueue } from "../../../src/graph/turn-queue.js";

describe("TurnQueue", () => {
  it("hands out one turn per event-loop iteration, first asked first served", async () => {
    let iteration = 0;
    let ticking = true;
    const tick = () => {
      iteration += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const turns = new TurnQueue();
    const served: Array<[string, number]> = [];
    await Promise.all(["a", "b", "c"].map((name) => turns.turn().then(() => served.push([name, iteration]))));
    ticking = false;
    expect(served.map(([name]) => name)).toEqual(["a", "b", "c"]);
    // Each turn came in its own iteration: sockets were polled between them.
    expect(new Set(served.map(([, at]) => at)).size).toBe(3);
  });
});
