import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import type { PauseValue } from "../../src/contracts/pause/pause.js";
import { ApiClient } from "../fixtures/http.js";
import { freePort } from "../fixtures/ports.js";
import { commandOf, DEFAULT_IMAGE, Podman, startContainer, uidsOf, type RunningContainer } from "../fixtures/podman.js";

/** Set by .ci/run after `npm run image`: the test needs the image, podman and root. */
const ENABLED = process.env.OPSPILOT_IMAGE_TEST === "1";
const IMAGE = process.env.OPSPILOT_IMAGE ?? DEFAULT_IMAGE;

const SEED = "看看支付服务最近报错，顺便对照一下文档里的处理建议";

/**
 * Waits until the server says it is ready: `/readyz` answering 200 (503 means not yet), or, on a
 * server without `/readyz` (404), `/healthz` answering 200. Returns the path that answered.
 */
async function waitUntilReady(baseUrl: string, container: RunningContainer, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const status = await fetch(new URL("/readyz", baseUrl)).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return "/readyz";
    if (status === 404 && (await fetch(new URL("/healthz", baseUrl))).status === 200) return "/healthz";
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the container was not ready after ${timeoutMs} ms:\n${await container.logs()}`);
}

describe.skipIf(!ENABLED)(`the container image ${IMAGE} (runs with OPSPILOT_IMAGE_TEST=1 after npm run image)`, () => {
  const token = randomBytes(24).toString("hex");
  let podman: Podman;
  let container: RunningContainer;
  let client: ApiClient;
  let readyPath: string;

  beforeAll(async () => {
    podman = new Podman();
    const port = await freePort();
    container = await startContainer(podman, {
      image: IMAGE,
      env: { HOST: "127.0.0.1", PORT: String(port), OPSPILOT_API_TOKENS: `${token}=alice:admin` },
    });
    client = new ApiClient(`http://127.0.0.1:${port}`, token);
    readyPath = await waitUntilReady(client.baseUrl, container, 90_000);
  }, 120_000);

  afterAll(async () => {
    await container?.remove();
    podman?.dispose();
  });

  it("becomes ready and refuses the API without a token", async () => {
    expect(["/readyz", "/healthz"]).toContain(readyPath);
    const anonymous = await fetch(new URL("/api/threads", client.baseUrl), { method: "POST" });
    expect(anonymous.status).toBe(401);
  });

  it("answers the seed question through the API with a pause and a resume", async () => {
    const threadId = await client.createThread();
    const first = await client.run(threadId, SEED);
    const pause = first.find((event) => event.type === "loop_interrupt") as RunEvent & PauseValue;
    expect(pause).toMatchObject({ interruptType: "params_required", calls: [{ tool: "search_logs" }] });
    expect(first.at(-1)).toMatchObject({ type: "run_finished", stopReason: "interrupted" });

    const second = await client.resume(threadId, {
      decisions: [{ callId: pause.calls[0]!.callId, action: "approve", params: { environment: "prod" } }],
    });
    expect(second.map((event) => event.type)).toEqual([
      "run_started",
      "tool_result",
      "assistant_message",
      "run_finished",
    ]);
    expect(second.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    const answer = second.find((event) => event.type === "assistant_message") as RunEvent & { content: string };
    expect(answer.content).toContain("支付");
    expect((await client.thread(threadId)).body).toMatchObject({ threadId, status: "idle" });
  });

  it("runs node under tini as uid 10001, never root", async () => {
    const pids = await container.hostPids();
    const commands = pids.map(commandOf);
    expect(commands[0]).toBe("/usr/bin/tini -- node dist/main.js");
    expect(commands).toContain("node dist/main.js");
    for (const pid of pids) expect(uidsOf(pid)).toEqual([10001, 10001, 10001, 10001]);
    expect(await container.exec("id", "-u")).toBe("10001");
  });

  it("writes its database to the /data volume and nothing to the root filesystem", async () => {
    expect((await container.exec("ls", "/data")).split("\n")).toContain("opspilot.db");
    await expect(container.exec("touch", "/app/written")).rejects.toThrow(/Read-only file system/);
    await expect(container.exec("touch", "/written")).rejects.toThrow(/Read-only file system/);
  });

  it("passes SIGTERM through tini to node, which exits 0 long before podman would kill it", async () => {
    const stopped = await container.stop(60);
    expect(stopped.exitCode).toBe(0);
    expect(stopped.elapsedMs).toBeLessThan(45_000);
  }, 90_000);
});
