import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCliProcess } from "../fixtures/cli-process.js";

/** What a run posted to LangSmith says of itself (the parts this test reads). */
interface TracedRun {
  id: string;
  name: string;
  run_type: string;
  trace_id?: string;
  parent_run_id?: string;
  extra?: { metadata?: Record<string, unknown> };
}

/** A loopback endpoint standing in for LangSmith's API: keeps every body and the API key it came with. */
async function startLangSmith() {
  const bodies: string[] = [];
  const keys = new Set<string>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      const key = req.headers["x-api-key"];
      if (typeof key === "string") keys.add(key);
      res.writeHead(200, { "content-type": "application/json" }).end(req.url?.startsWith("/info") ? "{}" : "{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    keys,
    /** The runs posted, from JSON batches and from multipart parts alike. */
    posted(): TracedRun[] {
      const runs: TracedRun[] = [];
      for (const body of bodies) {
        if (body.startsWith("{")) {
          runs.push(...((JSON.parse(body) as { post?: TracedRun[] }).post ?? []));
          continue;
        }
        // Multipart: a run's JSON is its `post.<id>` part, with `extra`, `inputs` and the like in parts of their own.
        const parts = new Map<string, Record<string, unknown>>();
        for (const part of body.split(/\r?\n--/)) {
          const match = /name="post\.([^".]+)(?:\.(\w+))?"\r?\n[^\n]*\r?\n\r?\n(\{.*\})/s.exec(part);
          if (!match) continue;
          const [, id, field, json] = match;
          const run = parts.get(id!) ?? {};
          const value = JSON.parse(json!.trim()) as Record<string, unknown>;
          parts.set(id!, field ? { ...run, [field]: value } : { ...value, ...run });
        }
        runs.push(...([...parts.values()] as unknown as TracedRun[]));
      }
      return runs;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe("LangSmith tracing", { timeout: 90_000 }, () => {
  it("reaches LangSmith from the CLI with LANGSMITH_TRACING: the graph, its nodes and the model, for a run and its resume", async () => {
    const langsmith = await startLangSmith();
    const directory = mkdtempSync(join(tmpdir(), "opspilot-langsmith-"));
    const options = {
      db: join(directory, "opspilot.sqlite"),
      env: {
        LANGSMITH_TRACING: "true",
        LANGSMITH_API_KEY: "lsv2_pt_test-key-0001",
        LANGSMITH_ENDPOINT: langsmith.url,
        LANGSMITH_PROJECT: "opspilot-test",
      },
    };
    try {
      const asked = await runCliProcess(["ask", "看看支付服务最近报错"], options, 60_000);
      expect(asked.code).toBe(0);
      const threadId = /--thread (\S+)/.exec(asked.stdout)?.[1];
      expect(threadId).toBeDefined();
      const resumed = await runCliProcess(
        ["ask", "--thread", threadId!, "--param", "environment=staging"],
        options,
        60_000,
      );
      expect(resumed.code).toBe(0);

      const runs = langsmith.posted();
      const roots = runs.filter((run) => run.name === "opspilot" && run.parent_run_id === undefined);
      // One trace per run: the run that paused and the one that resumed it.
      expect(roots).toHaveLength(2);
      expect(new Set(roots.map((run) => run.trace_id)).size).toBe(2);
      for (const root of roots) expect(root.extra?.metadata?.thread_id).toBe(threadId);
      const names = new Set(runs.map((run) => `${run.run_type}:${run.name}`));
      for (const expected of ["chain:call_model", "chain:execute_tools", "chain:review_calls", "llm:DemoChatModel"])
        expect(names).toContain(expected);
      expect([...langsmith.keys]).toEqual(["lsv2_pt_test-key-0001"]);
      expect(langsmith.bodies.join("")).not.toContain("lsv2_pt_test-key-0001");
    } finally {
      await langsmith.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
