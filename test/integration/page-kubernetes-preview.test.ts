import { type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, useChromium } from "../fixtures/browser.js";
import { startTestServer } from "../fixtures/http.js";
import { startKubernetesStandin, type KubernetesStandin } from "../fixtures/kubernetes-standin.js";
import { kubernetesSource } from "../fixtures/kubernetes-tools.js";
import { callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";

const TOKEN = "alice-k8s-page-token-01";
const auth = { tokens: new Map([[TOKEN, { id: "alice", role: "operator" as const }]]) };

let standin: KubernetesStandin;
beforeAll(async () => {
  standin = await startKubernetesStandin();
});
afterAll(() => standin.close());

describe.skipIf(!hasChromium)("a paused Kubernetes restart on the page", () => {
  const suite = useChromium();

  it("shows the dry run's changed field, the restart annotation from none to a time, before anything is patched", async () => {
    const source = await kubernetesSource(standin);
    const server = await startTestServer({
      model: new ScriptedChatModel({
        script: [
          callsMessage([
            {
              name: "kubernetes_rollout_restart",
              args: { namespace: "payments", deployment: "payment-service" },
              id: "restart-1",
            },
          ]),
        ],
        onExhausted: "answer",
      }),
      tools: () => [...source.allTools()],
      auth,
    });
    suite.servers.push(server);
    const page: Page = await suite.browser.newPage({ viewport: { width: 1000, height: 900 }, locale: "en-US" });
    await page.addInitScript((token) => window.localStorage.setItem("opspilot.token", token), TOKEN);
    await page.goto(`${server.url}/`);
    await page.getByLabel("Your question").fill("restart payment-service");
    await page.getByRole("button", { name: "Send", exact: true }).click();

    const preview = page.locator("form.pause .dry-run");
    await preview.waitFor();
    const row = preview.locator("li");
    expect(await row.count()).toBe(1);
    expect(await row.locator("code").textContent()).toBe(
      'spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]',
    );
    expect(await row.locator(".dry-run-from").textContent()).toBe("—");
    expect(await row.locator(".dry-run-to").textContent()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(await row.isVisible()).toBe(true);
    const patches = standin.requests.filter((r) => r.method === "PATCH");
    expect(patches.map((r) => r.query.dryRun)).toEqual(["All"]);
  });
});
