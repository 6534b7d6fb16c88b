import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { BaseMessage } from "@langchain/core/messages";
import { ToolError } from "../../../src/contracts/errors.js";
import { ToolRateLimits } from "../../../src/execution/governed-call.js";
import { answerMessage, callsMessage } from "../../fixtures/scripted-model.js";
import { applyToolPolicy, policySourceOf } from "../../../src/tools/policy.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { defineTool, type ToolDefinition } from "../../../src/tools/types.js";
import { createHarness, shape } from "../../fixtures/harness.js";
import { testTools } from "../../fixtures/test-tools.js";

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A read tool as an MCP source would give it: `<server>__<tool>`, naming its server. */
function serverTool(name: string, server: string, run: () => Promise<unknown> = async () => ({ up: 1 })) {
  return defineTool({
    name,
    description: `Reads from ${server}.`,
    schema: z.object({ query: z.string().optional().describe("Query") }),
    readOnly: true,
    risk: "low",
    timeoutMs: 1_000,
    source: { server },
    run,
  });
}

const observationOf = (messages: BaseMessage[], index: number) => JSON.parse(String(messages[index]!.content));

describe("tool policies from the config file", () => {
  it("lets an exact name beat any glob, and a glob with more literal characters beat a shorter one, field by field", () => {
    const tools = [
      serverTool("prom__query", "prom"),
      serverTool("prom__range", "prom"),
      serverTool("k8s__delete_pod", "k8s"),
      serverTool("search_logs", "local"),
    ];
    const effective = applyToolPolicy(tools, {
      "*": { timeoutMs: 5_000 },
      "prom__*": { timeoutMs: 8_000, rateLimit: { perMinute: 10 } },
      "prom__q*": { timeoutMs: 9_000 },
      prom__query: { risk: "high", roles: ["admin"] },
      "search_logs*": { timeoutMs: 3_000 },
      search_logs: { timeoutMs: 1_500, fallback: ["prom__query"] },
      "k8s__*": { enabled: false },
    });
    expect(
      effective.map(({ name, risk, roles, timeoutMs, rateLimit, fallback }) => ({
        name,
        risk,
        roles,
        timeoutMs,
        rateLimit,
        fallback,
      })),
    ).toEqual([
      {
        name: "prom__query",
        risk: "high",
        roles: ["admin"],
        timeoutMs: 9_000,
        rateLimit: { perMinute: 10 },
        fallback: undefined,
      },
      {
        name: "prom__range",
        risk: "low",
        roles: undefined,
        timeoutMs: 8_000,
        rateLimit: { perMinute: 10 },
        fallback: undefined,
      },
      {
        name: "search_logs",
        risk: "low",
        roles: undefined,
        timeoutMs: 1_500,
        rateLimit: undefined,
        fallback: ["prom__query"],
      },
    ]);
  });

  it("names, for each of readOnly, risk, idempotent and egress, the config key that won it or else where the tool got it", () => {
    const untrusted = {
      readOnly: "untrusted server default",
      risk: "untrusted server default",
      idempotent: "untrusted server default",
      egress: "untrusted server default",
    };
    const tools = [
      { ...serverTool("k8s__scale", "k8s"), readOnly: false, risk: "high" as const, policySource: untrusted },
      { ...serverTool("k8s__delete_pod", "k8s"), readOnly: false, risk: "high" as const, policySource: untrusted },
      serverTool("search_logs", "local"),
      serverTool("search_docs", "local"),
    ];
    const effective = applyToolPolicy(tools, {
      "k8s__*": { risk: "low", timeoutMs: 5_000 },
      "k8s__delete*": { risk: "high" },
      k8s__scale: { idempotent: true, egress: false },
      "search_*": { timeoutMs: 2_000 },
      search_logs: { readOnly: true },
    });
    expect(effective.map((tool) => [tool.name, policySourceOf(tool)])).toEqual([
      [
        "k8s__scale",
        {
          readOnly: "untrusted server default",
          risk: 'config tools["k8s__*"]',
          idempotent: 'config tools["k8s__scale"]',
          egress: 'config tools["k8s__scale"]',
        },
      ],
      [
        "k8s__delete_pod",
        {
          readOnly: "untrusted server default",
          risk: 'config tools["k8s__delete*"]',
          idempotent: "untrusted server default",
          egress: "untrusted server default",
        },
      ],
      [
        "search_logs",
        { readOnly: 'config tools["search_logs"]', risk: "built-in", idempotent: "built-in", egress: "built-in" },
      ],
      ["search_docs", { readOnly: "built-in", risk: "built-in", idempotent: "built-in", egress: "built-in" }],
    ]);
    expect(effective.find((tool) => tool.name === "k8s__scale")?.egress).toBe(false);
  });

  it("asks the user only for fields the tool's arguments have", () => {
    const [logs] = applyToolPolicy(testTools().slice(2, 3), {
      write_low: { askUser: { target: { description: "What to change" }, ticket: { description: "Change ticket" } } },
    });
    expect(logs!.askUser).toEqual({ target: { description: "What to change" } });
  });

  it("refuses a call beyond its per-user budget with rate_limited and retryAfterMs, before the tool runs", async () => {
    let runs = 0;
    const counted = defineTool({
      ...testTools()[0]!,
      async run(args: { query: string }) {
        runs += 1;
        return { query: args.query };
      },
    } as ToolDefinition);
    const harness = createHarness({
      tools: applyToolPolicy([counted], { read_a: { rateLimit: { perUserPerMinute: 1 } } }),
      script: [
        callsMessage([{ name: "read_a", args: { query: "x" }, id: "r1" }]),
        callsMessage([{ name: "read_a", args: { query: "y" }, id: "r2" }]),
        answerMessage("Limited."),
      ],
    });
    const { messages, events } = await harness.ask("look twice");
    expect(runs).toBe(1);
    const refused = observationOf(messages, 4);
    expect(refused).toEqual({
      ok: false,
      errorCode: "rate_limited",
      message:
        "read_a is limited to 1 call per minute per user; it was not called. Wait 60 s before proposing it again, or answer with what you have.",
      retryAfterMs: expect.any(Number),
      source: { tool: "read_a" },
      fetchedAt: expect.stringMatching(ISO_TIME),
    });
    expect(refused.retryAfterMs).toBeGreaterThan(59_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(events.filter((event) => event.type === "tool_result").map((event) => event.errorCode)).toEqual([
      undefined,
      "rate_limited",
    ]);
  });

  it("shares a perMinute budget between users and keeps each user's own budget apart", async () => {
    const tool = { ...serverTool("prom__query", "prom"), rateLimit: { perMinute: 2, perUserPerMinute: 1 } };
    const limits = new ToolRateLimits();
    const take = async (id: string) => {
      const refused = await limits.take(tool, { id, role: "operator" });
      return refused && !refused.ok ? refused.message : undefined;
    };
    expect(await take("alice")).toBeUndefined();
    expect(await take("alice")).toBe(
      "prom__query is limited to 1 call per minute per user; it was not called. Wait 60 s before proposing it again, or answer with what you have.",
    );
    expect(await take("bob")).toBeUndefined();
    expect(await take("carol")).toBe(
      "prom__query is limited to 2 calls per minute; it was not called. Wait 60 s before proposing it again, or answer with what you have.",
    );
  });

  it("lists the configured fallbacks the user may call and that are up in a failure observation", async () => {
    const tools = [...testTools(), serverTool("prom__query", "prom")];
    const harness = createHarness({
      tools: applyToolPolicy(tools, {
        missing: { fallback: ["read_b", "no_such_tool", "prom__query", "read_a"] },
        read_b: { roles: ["admin"] },
      }),
      script: [callsMessage([{ name: "missing", args: { id: "7" }, id: "m1" }]), answerMessage("Not found.")],
    });
    harness.registry.setUnavailable("prom", "connection refused");
    const { messages } = await harness.ask("find item 7");
    expect(observationOf(messages, 2)).toEqual({
      ok: false,
      errorCode: "not_found",
      message: "No item 7.",
      fallback: ["read_a"],
      source: { tool: "missing" },
      fetchedAt: expect.stringMatching(ISO_TIME),
    });
  });

  it("runs one write per step: a second write is skipped with a request to propose it again, then runs", async () => {
    const writes: string[] = [];
    const harness = createHarness({
      tools: testTools({ writes }),
      script: [
        callsMessage([
          { name: "write_low", args: { target: "a", environment: "prod" }, id: "w1" },
          { name: "read_a", args: { query: "x" }, id: "r1" },
          { name: "write_low", args: { target: "b", environment: "prod" }, id: "w2" },
        ]),
        callsMessage([{ name: "write_low", args: { target: "b", environment: "prod" }, id: "w3" }]),
        answerMessage("Both changed."),
      ],
    });
    const { threadId, messages, events } = await harness.ask("change a and b");
    expect(shape(messages)).toEqual([
      "human",
      "ai:write_low+read_a+write_low",
      "tool:write_low:ok",
      "tool:read_a:ok",
      "tool:write_low:skipped",
      "ai:write_low",
      "tool:write_low:ok",
      "ai",
    ]);
    expect(observationOf(messages, 4)).toEqual({
      ok: false,
      errorCode: "skipped",
      message:
        "Not run: only one write runs per step. Propose this call again after you have seen the result of write_low (w1).",
      source: { tool: "write_low" },
      fetchedAt: expect.stringMatching(ISO_TIME),
    });
    expect(writes).toEqual([`write_low:a:prod:${threadId}:w1`, `write_low:b:prod:${threadId}:w3`]);
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
  });

  it("stamps every observation with its source (and server) and when it was obtained", async () => {
    const before = Date.now();
    const harness = createHarness({
      tools: [...testTools(), serverTool("prom__query", "prom", async () => ({ series: 3 }))],
      script: [
        callsMessage([
          { name: "prom__query", args: { query: "up" }, id: "p1" },
          { name: "read_a", args: { query: "x" }, id: "r1" },
        ]),
        answerMessage("Three series."),
      ],
    });
    const { messages } = await harness.ask("how many series");
    const fromServer = observationOf(messages, 2);
    expect(fromServer).toEqual({
      ok: true,
      data: { series: 3 },
      source: { tool: "prom__query", server: "prom" },
      fetchedAt: expect.stringMatching(ISO_TIME),
    });
    expect(Date.parse(fromServer.fetchedAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(fromServer.fetchedAt)).toBeLessThanOrEqual(Date.now());
    expect(observationOf(messages, 3).source).toEqual({ tool: "read_a" });
  });

  it("retries a write after a timeout only when it is idempotent, with the same idempotency key", async () => {
    const attempts: string[] = [];
    const slowOnce = (name: string) =>
      defineTool({
        name,
        description: "A write whose first attempt hangs.",
        schema: z.object({}),
        readOnly: false,
        risk: "low",
        timeoutMs: 50,
        run: (_args, ctx) => {
          attempts.push(`${name}:${ctx.idempotencyKey}`);
          return attempts.filter((entry) => entry.startsWith(`${name}:`)).length === 1
            ? new Promise(() => undefined)
            : Promise.resolve({ applied: true });
        },
      });
    const harness = createHarness({
      tools: applyToolPolicy([slowOnce("set_idempotent"), slowOnce("set_once")], {
        set_idempotent: { idempotent: true },
      }),
      script: [
        callsMessage([{ name: "set_idempotent", id: "i1" }]),
        callsMessage([{ name: "set_once", id: "o1" }]),
        answerMessage("Done."),
      ],
    });
    const { threadId, messages } = await harness.ask("set both");
    expect(shape(messages)).toEqual([
      "human",
      "ai:set_idempotent",
      "tool:set_idempotent:ok",
      "ai:set_once",
      "tool:set_once:outcome_unknown",
      "ai",
    ]);
    expect(attempts).toEqual([
      `set_idempotent:${threadId}:i1`,
      `set_idempotent:${threadId}:i1`,
      `set_once:${threadId}:o1`,
    ]);
    expect(await harness.storage.getEntry(threadId, "i1")).toMatchObject({ state: "finished" });
    // The write that hung may have taken effect: it is reported as unknown, never as a plain timeout.
    expect(await harness.storage.getEntry(threadId, "o1")).toMatchObject({
      state: "finished",
      observation: { ok: false, errorCode: "outcome_unknown" },
    });
  });

  it("hides the tools of a server that is down from the model, says why in the prompt, and refuses a call to them", async () => {
    const harness = createHarness({
      tools: [...testTools().slice(0, 2), serverTool("prom__query", "prom"), serverTool("prom__range", "prom")],
      script: [
        callsMessage([{ name: "prom__query", args: { query: "up" }, id: "p1" }]),
        answerMessage("Prometheus is down."),
        answerMessage("Back."),
      ],
    });
    harness.registry.setUnavailable("prom", "connection refused");
    const { messages } = await harness.ask("query prometheus");
    const [first] = harness.model.calls;
    expect(first!.tools).toEqual(["read_a", "read_b"]);
    expect(String(first!.messages[0]!.content).split("\n").at(-1)).toBe(
      "Unavailable right now, because their server is down: prom__query, prom__range (server prom: connection refused). Do not call them; if the user needs them, say they cannot be reached.",
    );
    expect(observationOf(messages, 2)).toEqual({
      ok: false,
      errorCode: "transient",
      message: "prom__query is unavailable: its server prom is down (connection refused).",
      source: { tool: "prom__query", server: "prom" },
      fetchedAt: expect.stringMatching(ISO_TIME),
    });

    harness.registry.setAvailable("prom");
    await harness.ask("and now?");
    const last = harness.model.calls.at(-1)!;
    expect(last.tools).toEqual(["read_a", "read_b", "prom__query", "prom__range"]);
    expect(String(last.messages[0]!.content)).not.toContain("Unavailable right now");
  });

  it("replaces its tool list at runtime and recomputes only the specs of tools that changed", () => {
    const query = serverTool("prom__query", "prom");
    const range = serverTool("prom__range", "prom");
    const registry = new ToolRegistry([query, range]);
    const [querySpec, rangeSpec] = registry.specs();
    registry.replaceTools([
      query,
      { ...range, description: "Reads a range from prom." },
      serverTool("prom__x", "prom"),
    ]);
    const [queryAfter, rangeAfter, added] = registry.specs();
    expect(queryAfter).toBe(querySpec);
    expect(rangeAfter).not.toBe(rangeSpec);
    expect(rangeAfter!.function.description).toBe("Reads a range from prom.");
    expect(added!.function.name).toBe("prom__x");
    expect(registry.names()).toEqual(["prom__query", "prom__range", "prom__x"]);
    expect(() => registry.replaceTools([query, query])).toThrow("Duplicate tool name: prom__query");
    expect(registry.names()).toEqual(["prom__query", "prom__range", "prom__x"]);
  });

  it("never retries a write that failed transiently", async () => {
    let runs = 0;
    const flaky = defineTool({
      name: "flaky_write",
      description: "A write whose backend hiccups.",
      schema: z.object({}),
      readOnly: false,
      risk: "low",
      timeoutMs: 1_000,
      idempotent: true,
      async run() {
        runs += 1;
        throw new ToolError("transient", "backend hiccup");
      },
    });
    const harness = createHarness({
      tools: [flaky],
      script: [callsMessage([{ name: "flaky_write", id: "f1" }]), answerMessage("Failed.")],
    });
    const { messages } = await harness.ask("write");
    expect(runs).toBe(1);
    expect(observationOf(messages, 2)).toMatchObject({ ok: false, errorCode: "transient", message: "backend hiccup" });
  });
});
