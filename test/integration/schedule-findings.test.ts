import { join } from "node:path";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { ConfigFileSchema } from "../../src/config/schema.js";
import { taintOf } from "../../src/graph/calls/taint.js";
import type { IncidentRow } from "../../src/storage/types.js";
import { tempDirectory } from "../fixtures/alert-server.js";
import { answerMessage, callsMessage, ScriptedChatModel, type ScriptedCall } from "../fixtures/scripted-model.js";
import { startWebhookReceiver, type WebhookReceiver } from "../fixtures/webhook-receiver.js";

const TITLE = "payment-service burned 40% of its error budget overnight";

/**
 * The check's model: its first two runs find the budget burning and report it, the third finds all
 * well; the incident's investigation confirms the finding. Runs are told apart by their question,
 * which names the due time.
 */
function checkModel() {
  const runs: string[] = [];
  return ({ messages }: ScriptedCall) => {
    const question = String(messages.find((message: BaseMessage) => HumanMessage.isInstance(message))?.content);
    if (question.includes("reported a finding"))
      return answerMessage("Confirmed: the error ratio is 2.1% against a 0.1% objective since the 02:00 deploy.");
    if (!runs.includes(question)) runs.push(question);
    const run = runs.indexOf(question);
    const reported = messages.some((message) => ToolMessage.isInstance(message) && message.name === "report_finding");
    if (run < 2 && !reported)
      return callsMessage([
        {
          name: "report_finding",
          args: { title: TITLE, severity: "critical", summary: "The error ratio was 2.1% against a 0.1% objective." },
          id: `call_finding_${run}`,
        },
      ]);
    return answerMessage(run < 2 ? "Reported the burning budget." : "All well: the budget burns as planned.");
  };
}

async function until<T>(read: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("a scheduled check whose finding opens an incident", { timeout: 60_000 }, () => {
  const directory = tempDirectory();
  let receiver: WebhookReceiver;
  let app: App;
  let model: ScriptedChatModel;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    model = new ScriptedChatModel({
      script: Array.from({ length: 40 }, () => checkModel()).map((_, __, all) => all[0]!),
    });
    app = createApp({
      env: loadEnv({ OPSPILOT_INCIDENT_WEBHOOK: receiver.url, OPSPILOT_PUBLIC_URL: "https://ops.example.com/" }),
      dbPath: join(directory.path, "opspilot.sqlite"),
      model,
      config: ConfigFileSchema.parse({
        schedules: [
          { name: "budget", cron: "*/2 * * * * *", message: "check payment-service's error budget", incident: true },
        ],
      }),
      sweepMs: { incidents: 100 },
    });
    app.start();
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
    directory.remove();
  });

  const latest = async (): Promise<IncidentRow | undefined> =>
    (await app.storage.incidents.latestIncident("schedule", "budget")).incident;

  it("opens one incident for the finding, investigates it on its own thread, and resolves it when a run finds nothing", async () => {
    const opened = await until(latest);
    expect(opened).toMatchObject({
      source: "schedule",
      groupKey: "budget",
      alertname: TITLE,
      severity: "critical",
      labels: { schedule: "budget", severity: "critical" },
      threadId: `incident-${opened.incidentId}`,
    });
    const resolved = await until(async () => ((await latest())?.status === "resolved" ? await latest() : undefined));
    // The second run's finding found it open: still one episode.
    expect((await app.storage.incidents.latestIncident("schedule", "budget")).episodes).toBe(1);
    expect(resolved.incidentId).toBe(opened.incidentId);

    // The investigation ran on the incident's thread, opened by the finding, and that message taints it.
    // The resolution is a note, recorded once the investigation's run has left the thread.
    await until(async () => ((await app.storage.incidents.pendingIncidentMessages()).length === 0 ? true : undefined));
    const state = await app.graph.getState({ configurable: { thread_id: opened.threadId } });
    const messages = state.values.messages as BaseMessage[];
    const first = String(messages.find((message) => HumanMessage.isInstance(message))!.content);
    expect(first).toMatch(
      /^Scheduled check budget \(due \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\) reported a finding: payment-service/,
    );
    expect(first).toContain("Severity: critical\nWhat it found: The error ratio was 2.1% against a 0.1% objective.");
    expect(first).toMatch(
      /The check's thread: schedule-budget-\d+ \(https:\/\/ops\.example\.com\/\?thread=schedule-budget-\d+\)/,
    );
    expect(taintOf(messages, app.registry)?.sources).toEqual(["incident_message"]);
    expect(messages.map((message) => String(message.content)).join("\n")).toContain(
      "Confirmed: the error ratio is 2.1%",
    );
    expect(String(messages.at(-1)!.content)).toMatch(/answered without a finding: the incident is resolved/);

    // The resolved notice says how it ended.
    const notice = await until(async () =>
      receiver.bodies.find((body) => body.type === "incident" && body.event === "resolved"),
    );
    expect(notice).toMatchObject({
      incidentId: opened.incidentId,
      source: "schedule",
      resolution: "alert_resolved",
      summary: `${TITLE} resolved: the next run of the scheduled check budget answered without a finding.`,
    });
  });

  it("lists the checks' and the incident's threads for an operator who asks for the team's, and not for a viewer", async () => {
    const incident = await until(latest);
    const listed = (user: { id: string; role: "viewer" | "operator" | "admin" }) =>
      app.runtime.listThreads(user, { limit: 200, shared: true }).then((items) => items.map((item) => item.threadId));
    const operator = await listed({ id: "olga", role: "operator" });
    expect(operator).toContain(incident.threadId);
    expect(operator.filter((threadId) => /^schedule-budget-\d+$/.test(threadId)).length).toBeGreaterThanOrEqual(3);
    const check = (await app.runtime.listThreads({ id: "olga", role: "operator" }, { limit: 200, shared: true })).find(
      (item) => item.threadId.startsWith("schedule-budget-"),
    );
    expect(check?.title).toMatch(/^Scheduled check budget, due \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC: check payment/);
    expect(await listed({ id: "vic", role: "viewer" })).toEqual([]);
    // Without asking, a list holds the user's own threads only.
    expect(await app.runtime.listThreads({ id: "olga", role: "operator" }, { limit: 200 })).toEqual([]);
  });
});
