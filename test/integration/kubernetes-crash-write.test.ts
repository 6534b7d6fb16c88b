/* eslint-disable @typescript-eslint/no-explicit-any -- events and results are JSON whose shape the test asserts */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startKubernetesStandin, type KubernetesStandin } from "../fixtures/kubernetes-standin.js";
import { tsEntry } from "../fixtures/ts-children.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-k8s-crash-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let standin: KubernetesStandin | undefined;
afterEach(async () => {
  await standin?.close();
  standin = undefined;
});

/**
 * Runs test/fixtures/kubernetes-child-run.ts in its own process. Not spawnSync: the stand-in
 * answers from this process, whose event loop must keep running.
 */
async function child(mode: string, dbPath: string, threadId = "-", killPoint = "none") {
  const args = [mode, dbPath, standin!.kubeconfig("admin"), threadId, killPoint];
  const proc = spawn(process.execPath, [...tsEntry("test/fixtures/kubernetes-child-run.ts"), ...args]);
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (chunk) => (stdout += chunk));
  proc.stderr.on("data", (chunk) => (stderr += chunk));
  const [status, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    proc.on("close", (code, sig) => resolve([code, sig])),
  );
  if (status !== 0 && signal === null) throw new Error(`child ${mode} failed: ${stderr}`);
  const line = stdout.trim().split("\n").filter(Boolean).at(-1);
  return { signal, output: line ? (JSON.parse(line) as { threadId: string; events: any[] }) : undefined };
}

const patches = (s: KubernetesStandin) =>
  s.requests.filter((r) => r.method === "PATCH" && r.path.endsWith("/deployments/payment-service"));

describe("a kill between a restart's approval and its write", () => {
  it.each([
    ["after-journal-start", 0],
    ["in-tool-after-effect", 1],
  ] as const)(
    "when killed at %s, the resume in another process sends no second PATCH and reports outcome_unknown",
    async (killPoint, sent) => {
      standin = await startKubernetesStandin({ rolloutDelayMs: 8_000 });
      const dbPath = join(directory, `${killPoint}.sqlite`);
      const paused = await child("pause", dbPath);
      expect(paused.output!.events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });
      const threadId = paused.output!.threadId;
      expect(patches(standin).map((r) => r.query.dryRun)).toEqual(["All"]);

      const killed = await child("approve", dbPath, threadId, killPoint);
      expect(killed.signal).toBe("SIGKILL");
      const afterKill = patches(standin).filter((r) => r.query.dryRun === undefined);
      expect(afterKill).toHaveLength(sent);

      const recovered = await child("recover", dbPath, threadId);
      const result = recovered.output!.events.find((e) => e.type === "tool_result" && e.callId === "w1");
      expect(result).toMatchObject({ ok: false, errorCode: "outcome_unknown" });
      expect(recovered.output!.events.at(-1)).toMatchObject({ type: "run_finished" });
      // Exactly the PATCH that went out before the kill, never a second one; and only one dry run.
      expect(patches(standin).map((r) => r.query.dryRun ?? "none")).toEqual(["All", ...Array(sent).fill("none")]);
    },
    60_000,
  );

  it("when killed once the write's result is journaled, the resume reports that result and sends no second PATCH", async () => {
    standin = await startKubernetesStandin({ rolloutDelayMs: 200 });
    const dbPath = join(directory, "after-journal-finish.sqlite");
    const threadId = (await child("pause", dbPath)).output!.threadId;

    const killed = await child("approve", dbPath, threadId, "after-journal-finish");
    expect(killed.signal).toBe("SIGKILL");

    const recovered = await child("recover", dbPath, threadId);
    const result = recovered.output!.events.find((e) => e.type === "tool_result" && e.callId === "w1");
    expect(result).toMatchObject({ ok: true });
    expect(recovered.output!.events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(patches(standin).map((r) => r.query.dryRun ?? "none")).toEqual(["All", "none"]);
    expect(standin.get("deployments", "payments", "payment-service")!.metadata.annotations).toMatchObject({
      "deployment.kubernetes.io/revision": "43",
    });
  }, 60_000);
});
