import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import type { PauseValue } from "../../src/contracts/pause/pause.js";
import { ALERT_TOKEN, firingFixture } from "../fixtures/alert-server.js";
import {
  HANDOFF_QUESTION,
  handoffRequests,
  PAUSE_QUESTION,
  recordedCalls,
  startHandoffModel,
  typesOf,
  untilSlowStep,
  untilTakenOver,
} from "../fixtures/handoff-scenario.js";
import { ApiClient } from "../fixtures/http.js";
import type { OpenAITestServer } from "../fixtures/openai-server.js";
import { DEFAULT_IMAGE, Podman, startContainer, type RunningContainer } from "../fixtures/podman.js";
import { freePort } from "../fixtures/ports.js";
import { startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";

/** Set by .ci/run after `npm run image`: the test needs the image, podman and root. */
const ENABLED = process.env.OPSPILOT_IMAGE_TEST === "1";
const IMAGE = process.env.OPSPILOT_IMAGE ?? DEFAULT_IMAGE;
const GRACE_SECONDS = 10;

/** One container of the image and a client of its API. */
interface Replica {
  container: RunningContainer;
  client: ApiClient;
}

describe.skipIf(!ENABLED)(`two containers of ${IMAGE} on one PostgreSQL database`, () => {
  const token = randomBytes(24).toString("hex");
  let podman: Podman;
  let cluster: PostgresCluster;
  let model: OpenAITestServer;
  let a: Replica;
  let b: Replica;

  async function startReplica(): Promise<Replica> {
    const port = await freePort();
    const container = await startContainer(podman, {
      image: IMAGE,
      env: {
        HOST: "127.0.0.1",
        PORT: String(port),
        OPSPILOT_API_TOKENS: `${token}=alice:admin`,
        OPSPILOT_ALERT_TOKEN: ALERT_TOKEN,
        DATABASE_URL: cluster.url,
        OPSPILOT_MODEL: "openai:gpt-4o-mini",
        OPENAI_BASE_URL: model.baseURL,
        OPSPILOT_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
      },
    });
    const client = new ApiClient(`http://127.0.0.1:${port}`, token);
    const deadline = Date.now() + 90_000;
    while (
      (await fetch(`${client.baseUrl}/readyz`).then(
        (r) => r.status,
        () => 0,
      )) !== 200
    ) {
      if (Date.now() > deadline) throw new Error(`not ready:\n${await container.logs()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return { container, client };
  }

  beforeAll(async () => {
    podman = new Podman();
    [cluster, model] = await Promise.all([startPostgresCluster(), startHandoffModel()]);
    [a, b] = await Promise.all([startReplica(), startReplica()]);
  }, 150_000);

  afterAll(async () => {
    await Promise.all([a?.container.remove(), b?.container.remove()]);
    podman?.dispose();
    await model?.close();
    await cluster?.stop();
  }, 60_000);

  it("answers through one container a pause made through the other", async () => {
    const threadId = await a.client.createThread();
    const paused = await a.client.run(threadId, PAUSE_QUESTION);
    const pause = paused.find((event) => event.type === "loop_interrupt") as RunEvent & PauseValue;
    expect(pause).toMatchObject({ interruptType: "confirm_risky", calls: [{ tool: "restart_service" }] });
    const resumed = await b.client.resume(threadId, {
      decisions: [{ callId: "call_restart", action: "approve", argsHash: pause.calls[0]!.argsHash }],
    });
    expect(typesOf(resumed)).toEqual(["run_started", "tool_result", "assistant_message", "run_finished"]);
    expect(resumed[1]).toMatchObject({ tool: "restart_service", ok: true });
    expect(await recordedCalls(a.client, threadId)).toEqual(["call_restart restart_service ok"]);
  }, 60_000);

  it("opens one incident for an alert group delivered to both containers", async () => {
    const deliver = (replica: Replica) =>
      fetch(`${replica.client.baseUrl}/api/alerts/alertmanager`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${ALERT_TOKEN}` },
        body: JSON.stringify(firingFixture()),
      });
    const answers = await Promise.all([deliver(a), deliver(b)]);
    expect(answers.map((response) => response.status).every((status) => status >= 200 && status < 300)).toBe(true);
    for (const replica of [a, b]) {
      const response = await replica.client.request("GET", "/api/incidents");
      const { incidents } = (await response.json()) as { incidents: unknown[] };
      expect(incidents).toHaveLength(1);
    }
  }, 30_000);

  it("hands a run caught by SIGTERM to the other container, which takes it over by itself running nothing twice", async () => {
    const threadId = await a.client.createThread();
    const streamed = a.client.run(threadId, HANDOFF_QUESTION);
    await untilSlowStep(model);
    // podman's own stop and clean-up (vfs) come on top of the process's drain; SIGKILL would come at grace + 30 s.
    const stopped = await a.container.stop(GRACE_SECONDS + 30);
    expect(stopped.exitCode).toBe(0);
    const handedOver = await streamed;
    expect(typesOf(handedOver)).toEqual(["run_started", "tool_call", "tool_result", "tool_call"]);

    // Nobody asks for a recovery: the other container's `takeover` job finds the hand-over and finishes the run.
    const finished = await untilTakenOver(b.client, threadId, handedOver.at(-1)!.seq);
    expect(typesOf(finished)).toEqual(["run_started", "tool_result", "assistant_message", "run_finished"]);
    expect(finished.at(-1)).toMatchObject({ stopReason: "final_answer" });
    expect(handoffRequests(model)).toHaveLength(3);
    expect(await recordedCalls(b.client, threadId)).toEqual([
      "call_first search_resource ok",
      "call_second search_resource ok",
    ]);
  }, 90_000);
});
