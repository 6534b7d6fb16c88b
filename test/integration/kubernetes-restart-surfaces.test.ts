/* eslint-disable @typescript-eslint/no-explicit-any -- events are JSON whose shape the test asserts */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describePause } from "../../src/cli/pause/pause.js";
import { createStyle } from "../../src/cli/output/style.js";
import { PauseValueSchema } from "../../src/contracts/pause/pause.js";
import { pauseNotice, pauseWebhookBody } from "../../src/service/notices/pause-webhook-body.js";
import { startKubernetesStandin, type KubernetesStandin } from "../fixtures/kubernetes-standin.js";
import { kubernetesSource } from "../fixtures/kubernetes-tools.js";
import { createHarness } from "../fixtures/harness.js";
import { answerMessage, callsMessage } from "../fixtures/scripted-model.js";

const RESTART_FIELD = 'spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]';

let standin: KubernetesStandin;
let pause: any;
beforeAll(async () => {
  standin = await startKubernetesStandin();
  const source = await kubernetesSource(standin);
  const harness = createHarness({
    tools: [...source.allTools()],
    script: [
      callsMessage([
        {
          name: "kubernetes_rollout_restart",
          args: { namespace: "payments", deployment: "payment-service" },
          id: "r1",
        },
      ]),
      answerMessage("Restarted."),
    ],
  });
  const paused = await harness.ask("restart payment-service");
  pause = paused.events.find((event: any) => event.type === "loop_interrupt");
  harness.close();
});
afterAll(() => standin.close());

describe("a paused Kubernetes restart on every surface that shows a pause", () => {
  it("carries the dry run's restart annotation in the interrupt value the API serves", () => {
    const [call] = PauseValueSchema.parse(pause).calls;
    expect(call.preview!.changes).toEqual([
      { path: RESTART_FIELD, from: null, to: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/) },
    ]);
  });

  it("prints it under the call in the CLI", () => {
    const restartedAt = pause.calls[0].preview.changes[0].to;
    const lines = describePause(pause, { style: createStyle(false), tagOf: () => "[1]" });
    expect(lines.slice(-2)).toEqual([
      "      dry run, will change:",
      `        ${RESTART_FIELD}: (none) → ${restartedAt}`,
    ]);
  });

  it("writes it into the Slack notice's text and blocks and its approval dialog", () => {
    const restartedAt = pause.calls[0].preview.changes[0].to;
    const body = pauseWebhookBody(pauseNotice(pause, "http://127.0.0.1:8787/"), "slack") as any;
    const line = `${RESTART_FIELD}: (none) → ${restartedAt}`;
    expect(body.text).toContain(`  dry run, will change:\n    ${line}`);
    expect(JSON.stringify(body.blocks.slice(0, -1))).toContain(JSON.stringify(line).slice(1, -1));
    const confirm = body.blocks.at(-1).elements[0].confirm.text.text;
    expect(confirm).toBe(`kubernetes_rollout_restart will run with the arguments shown above. It changes ${line}.`);
  });
});
