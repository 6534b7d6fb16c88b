import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { parseConfig } from "../../src/config/file.js";
import type { RunEvent } from "../../src/contracts/events.js";
import { currentRolesOf } from "../../src/server/auth/auth.js";
import { slackIntakeOf } from "../../src/server/slack/intake.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { collectEvents } from "../../src/service/events/recorded-events.js";
import { createMcpToolSource } from "../../src/tools/mcp/index.js";
import type { ToolView } from "../../src/tools/tool-view.js";
import { ApiClient } from "../fixtures/http.js";
import { filesystemServer } from "../fixtures/mcp-servers.js";
import { monitoringBinariesPresent, startMonitoringStack, type MonitoringStack } from "../fixtures/monitoring-stack.js";
import { answerMessage, callsMessage, ScriptedChatModel, type ScriptedCall } from "../fixtures/scripted-model.js";
import { noticeOf, slackClicker, startSlack, type SlackStandIn } from "../fixtures/slack.js";

const SECRET = "slack-signing-secret-0123456789abcdef";
const OLGA = "U0OLGA01";
const VIC = "U0VIC001";
const TOKENS = "tok-olga-0001=olga:operator,tok-vic-00001=vic:viewer";
const SILENCE_COMMENT = "least-privilege test silence";

const directory = mkdtempSync(join(tmpdir(), "opspilot-least-privilege-"));
const workspace = join(directory, "docs");
mkdirSync(workspace);

/**
 * The model: "mkdir <name>" proposes the filesystem server's create_directory (an MCP write with no
 * roles), "silence" proposes alertmanager_create_silence (a toolset write with no roles); after a
 * tool result it answers.
 */
function turn(call: ScriptedCall) {
  const last = call.messages.at(-1);
  if (last instanceof ToolMessage) return answerMessage("Done.");
  const text = last instanceof HumanMessage ? String(last.content) : "";
  if (text.startsWith("mkdir "))
    return callsMessage([{ name: "docs__create_directory", args: { path: join(workspace, text.slice(6)) } }]);
  return callsMessage([
    {
      name: "alertmanager_create_silence",
      args: { matchers: [{ name: "alertname", value: text }], durationMinutes: 30, comment: SILENCE_COMMENT },
    },
  ]);
}

let stack: MonitoringStack | undefined;
let slack: SlackStandIn;
let app: App;
let server: RunningServer;
let click: ReturnType<typeof slackClicker>;
let olga: ApiClient;
let vic: ApiClient;

beforeAll(async () => {
  if (monitoringBinariesPresent) stack = await startMonitoringStack();
  slack = await startSlack();
  const env = loadEnv({
    OPSPILOT_DB: join(directory, "opspilot.sqlite"),
    OPSPILOT_PAUSE_WEBHOOK: `${slack.url}/hook`,
    OPSPILOT_PAUSE_WEBHOOK_FORMAT: "slack",
    OPSPILOT_SLACK_SIGNING_SECRET: SECRET,
    OPSPILOT_API_TOKENS: TOKENS,
  });
  const auth = { tokens: env.OPSPILOT_API_TOKENS };
  const currentRoles = currentRolesOf(auth);
  const config = parseConfig(
    {
      demo: false,
      ...(stack ? { toolsets: { alertmanager: { url: stack.alertmanagerUrl } } } : {}),
      chat: { slack: { users: { [OLGA]: "olga", [VIC]: "vic" } } },
    },
    {},
  );
  const source = createMcpToolSource({ docs: filesystemServer(workspace) }, { logger: { error: () => undefined } });
  await source.start();
  const model = new ScriptedChatModel({ script: Array.from({ length: 40 }, () => turn), onExhausted: "answer" });
  app = createApp({ env, model, config, currentRoles, toolSources: [source] });
  const logger = { error: () => undefined };
  const intake = slackIntakeOf({
    env,
    config,
    runtime: app.runtime,
    currentRoles,
    logger,
    responseUrlPrefixes: [`${slack.url}/response/`],
  })!;
  server = await startServer({ runtime: app.runtime, auth, port: 0, logger, slack: intake, tools: app.registry });
  click = slackClicker({
    serverUrl: server.url,
    slack,
    secret: SECRET,
    idle: () => intake.approvals.idle(),
    defaultUser: VIC,
  });
  olga = new ApiClient(server.url, "tok-olga-0001");
  vic = new ApiClient(server.url, "tok-vic-00001");
}, 90_000);

afterAll(async () => {
  await server?.close();
  await app?.close();
  await slack?.close();
  await stack?.stop();
  rmSync(directory, { recursive: true, force: true });
});

/** The silences this test's calls made in Alertmanager. */
async function silencesMade(): Promise<unknown[]> {
  const response = await fetch(`${stack!.alertmanagerUrl}/api/v2/silences`);
  return ((await response.json()) as Array<{ comment: string }>).filter((silence) =>
    silence.comment.startsWith(SILENCE_COMMENT),
  );
}

type Pause = Extract<RunEvent, { type: "loop_interrupt" }>;

/**
 * A pause on a thread of vic's, proposed while vic still held an operator's role (as after a
 * demotion): the token table now gives vic only a viewer's token.
 */
async function vicsPause(message: string): Promise<{ threadId: string; pause: Pause }> {
  const user = { id: "vic", role: "operator" };
  const threadId = await app.runtime.createThread(user);
  const events = await collectEvents(await app.runtime.startRun({ threadId, message, user }));
  const pause = events.find((event): event is Pause => event.type === "loop_interrupt");
  expect(pause?.interruptType).toBe("confirm_risky");
  return { threadId, pause: pause! };
}

/** The MCP write and the toolset write this process offers (the toolset only with a real Alertmanager). */
const writes = [
  { tool: "docs__create_directory", ask: "mkdir vic-was-here", ran: () => existsSync(join(workspace, "vic-was-here")) },
  ...(monitoringBinariesPresent
    ? [
        {
          tool: "alertmanager_create_silence",
          ask: "PaymentErrorsHigh",
          ran: async () => (await silencesMade()).length > 0,
        },
      ]
    : []),
];

describe("least privilege by default: a write that names no roles", { timeout: 60_000 }, () => {
  it("is shown open to operator and admin only in GET /api/tools, and hidden from a viewer", async () => {
    const all = (await (await olga.request("GET", "/api/tools")).json()) as { tools: ToolView[] };
    const roles = Object.fromEntries(all.tools.map((tool) => [tool.name, tool.roles]));
    expect(roles.docs__create_directory).toEqual(["operator", "admin"]);
    expect(roles.docs__read_text_file).toBeNull();
    if (monitoringBinariesPresent) expect(roles.alertmanager_create_silence).toEqual(["operator", "admin"]);
    const seen = (await (await vic.request("GET", "/api/tools")).json()) as { tools: ToolView[] };
    const names = seen.tools.map((tool) => tool.name);
    expect(names).toContain("docs__read_text_file");
    for (const { tool } of writes) expect(names).not.toContain(tool);
  });

  for (const write of writes) {
    describe(write.tool, () => {
      it("refuses a viewer's proposal with permission_denied, and nothing runs", async () => {
        const threadId = await vic.createThread();
        const events = await vic.run(threadId, write.ask);
        expect(events.some((event) => event.type === "loop_interrupt")).toBe(false);
        expect(events.find((event) => event.type === "tool_result")).toMatchObject({
          tool: write.tool,
          ok: false,
          errorCode: "permission_denied",
        });
        expect(await write.ran()).toBe(false);
      });

      it("refuses a viewer's approval over /resume and a viewer's Slack click, and runs once for an operator", async () => {
        const { threadId, pause } = await vicsPause(write.ask);
        const call = pause.calls[0]!;
        expect(call.tool).toBe(write.tool);
        const approve = { decisions: [{ callId: call.callId, action: "approve", argsHash: call.argsHash }] };

        const refused = await vic.request("POST", `/api/threads/${threadId}/resume`, approve);
        expect(refused.status).toBe(403);
        expect(((await refused.json()) as { error: { code: string; message: string } }).error).toEqual({
          code: "permission_denied",
          message: `Your role (viewer) is not allowed to use ${write.tool}, so you cannot approve or edit call ${call.callId}; it keeps waiting for a user who may.`,
        });

        const notice = await noticeOf(slack, threadId);
        const clicked = await click({ button: notice.buttons.opspilot_approve!, slackUser: VIC });
        expect(clicked.replies).toEqual([
          {
            response_type: "ephemeral",
            replace_original: false,
            text: expect.stringMatching(
              new RegExp(`^vic may not answer this pause: Your role \\(viewer\\) is not allowed to use ${write.tool}`),
            ),
          },
        ]);
        expect(await write.ran()).toBe(false);
        expect((await app.runtime.getThread(threadId, { id: "vic", role: "viewer" })).status).toBe("interrupted");

        // Olga, an operator, may open another's thread only when it is shared; her own proposal runs once approved.
        const own = await olga.createThread();
        const paused = (await olga.run(own, write.ask)).find(
          (event): event is Pause => event.type === "loop_interrupt",
        )!;
        const events = await olga.resume(own, {
          decisions: [{ callId: paused.calls[0]!.callId, action: "approve", argsHash: paused.calls[0]!.argsHash }],
        });
        expect(events.find((event) => event.type === "tool_result")).toMatchObject({ tool: write.tool, ok: true });
        expect(await write.ran()).toBe(true);
      });
    });
  }
});
