import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { examine } from "../../src/cli/doctor/checks.js";
import { loadEnv } from "../../src/config/env.js";
import { parseConfig } from "../../src/config/file.js";
import { runCliProcess } from "../fixtures/cli-process.js";
import { monitoringBinariesPresent, startMonitoringStack, type MonitoringStack } from "../fixtures/monitoring-stack.js";
import { startOpenAIServer, type OpenAITestServer, type RecordedRequest } from "../fixtures/openai-server.js";
import { freePort } from "../fixtures/ports.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-doctor-deps-"));
let files = 0;
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A stdio "MCP server" that says why on its first stderr line, then prints 200 lines of usage text and exits. */
const REASON = "Error: no current-context is set and no contexts are defined in kubeconfig";
const failingServer = {
  command: process.execPath,
  args: [
    "-e",
    `console.error(${JSON.stringify(REASON)}); for (let i = 1; i <= 200; i++) console.error("  --flag-" + i + "  usage line " + i); process.exit(1);`,
  ],
};

/** Environment of one doctor check: a fresh SQLite file, no key, no database URL, plus `extra`. */
function envOf(extra: Record<string, string> = {}) {
  files += 1;
  return loadEnv({ OPSPILOT_DB: join(directory, `doctor-${files}.sqlite`), ...extra });
}

/** The strict mock model's answer: a call of the probe's tool, only when the request offered it. */
function callsOfferedTool(request: RecordedRequest) {
  const offered = (request.body.tools ?? []) as Array<{ function?: { name?: string } }>;
  const name = offered[0]?.function?.name;
  return name ? { toolCalls: [{ name, arguments: "{}" }] } : { status: 400, error: { message: "no tool offered" } };
}

/** A closed loopback port's URL. */
async function deadUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

describe("npm run doctor checks what on-call depends on", { timeout: 90_000 }, () => {
  let model: OpenAITestServer;
  beforeAll(async () => {
    model = await startOpenAIServer();
  });
  afterAll(() => model.close());

  it("names a dead model endpoint, a dead Prometheus, a dead Alertmanager and an MCP server's reason, one line each", async () => {
    const [prometheus, alertmanager] = [await deadUrl(), await deadUrl()];
    const report = await examine(
      envOf({ OPSPILOT_MODEL: "openai:test-model", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" }),
      parseConfig(
        {
          demo: false,
          toolsets: { prometheus: { url: prometheus }, alertmanager: { url: alertmanager } },
          mcpServers: { k8s: failingServer },
        },
        {},
      ),
    );
    const promHost = new URL(prometheus).host;
    const amHost = new URL(alertmanager).host;
    expect(report.problems.map((line) => line.replace(/\d+ ms/, "N ms"))).toEqual([
      "model openai:test-model at 127.0.0.1:1: unreachable: check OPENAI_BASE_URL and that the endpoint is running (bad port, N ms)",
      `Prometheus at ${promHost}: could not be reached (ECONNREFUSED); it may be down or restarting (N ms): check toolsets.prometheus.url`,
      `Alertmanager at ${amHost}: could not be reached (ECONNREFUSED); it may be down or restarting (N ms): check toolsets.alertmanager.url`,
      `MCP server k8s is down: exited during the handshake; stderr: "${REASON}" … "--flag-200  usage line 200"`,
    ]);
  });

  it("says the model answered without calling the tool, and that a refused key or an unknown model is what failed", async () => {
    const env = envOf({
      OPSPILOT_MODEL: "openai:test-model",
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: "sk-secret-123",
    });
    const host = new URL(model.baseURL).host;
    const config = parseConfig({}, {});
    const problemOf = async () => (await examine(env, config)).problems.map((line) => line.replace(/\d+ ms/, "N ms"));

    model.enqueue({ content: "Hello! How can I help you today?" });
    expect(await problemOf()).toEqual([
      `model openai:test-model at ${host}: the model answered without calling the tool (HTTP 200, N ms): opspilot needs a model that calls tools`,
    ]);
    const request = model.requests.at(-1)!;
    expect(request.headers.authorization).toBe("Bearer sk-secret-123");
    expect(request.body.tools).toHaveLength(1);

    model.enqueue({
      status: 401,
      error: { message: "Incorrect API key provided: sk-sec***123.", code: "invalid_api_key" },
    });
    expect(await problemOf()).toEqual([
      `model openai:test-model at ${host}: the API key was refused: check OPENAI_API_KEY (HTTP 401, N ms)`,
    ]);

    model.enqueue({
      status: 404,
      error: { message: "The model `test-model` does not exist", code: "model_not_found" },
    });
    expect(await problemOf()).toEqual([
      `model openai:test-model at ${host}: no such model ("The model \`test-model\` does not exist"): check OPSPILOT_MODEL (HTTP 404, N ms)`,
    ]);
  });

  it("prints one database line for PostgreSQL, its password masked, and no SQLite line", async () => {
    const port = await freePort();
    const report = await examine(
      envOf({ DATABASE_URL: `postgres://opspilot:hunter2@127.0.0.1:${port}/opspilot` }),
      parseConfig({}, {}),
    );
    const databases = report.checks.filter((check) => check.subject === "database");
    expect(databases).toHaveLength(1);
    expect(databases[0]!.detail).toMatch(
      new RegExp(`^PostgreSQL postgres://opspilot:\\*{4}@127\\.0\\.0\\.1:${port}/opspilot: `),
    );
    expect(JSON.stringify(report)).not.toContain("hunter2");
    expect(report.problems).toEqual([databases[0]!.detail]);
  });

  describe.skipIf(!monitoringBinariesPresent)("against working dependencies", () => {
    let stack: MonitoringStack;
    let receiver: Server;
    const notices: unknown[] = [];
    beforeAll(async () => {
      stack = await startMonitoringStack();
      receiver = createServer((request, response) => {
        let body = "";
        request.on("data", (chunk: Buffer) => (body += chunk.toString()));
        request.on("end", () => {
          notices.push(JSON.parse(body));
          response.end("ok");
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    }, 60_000);
    afterAll(async () => {
      await stack?.stop();
      receiver?.close();
    });

    it("exits 0 with the strict mock model, real Prometheus and Alertmanager, and delivers a test notice with --send-test", async () => {
      model.reset();
      model.enqueue(callsOfferedTool);
      files += 1;
      const config = join(directory, `config-${files}.json`);
      writeFileSync(
        config,
        JSON.stringify({
          toolsets: { prometheus: { url: stack.prometheusUrl }, alertmanager: { url: stack.alertmanagerUrl } },
        }),
      );
      const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const result = await runCliProcess(["--send-test"], {
        entry: "src/cli/doctor-main.ts",
        db: join(directory, `doctor-${files}.sqlite`),
        env: {
          OPSPILOT_CONFIG: config,
          DATABASE_URL: "",
          OPSPILOT_MODEL: "openai:test-model",
          OPENAI_BASE_URL: model.baseURL,
          OPENAI_API_KEY: "",
          OPSPILOT_PAUSE_WEBHOOK: hook,
        },
      });
      expect(result.stderr).toBe("");
      const lines = result.stdout.split("\n").map((line) => line.replace(/\d+ ms/, "N ms"));
      const promHost = new URL(stack.prometheusUrl).host;
      const amHost = new URL(stack.alertmanagerUrl).host;
      expect(lines).toContain(
        `model          openai:test-model at ${new URL(model.baseURL).host}: called the tool (HTTP 200, N ms)`,
      );
      expect(lines).toContain(`prometheus     Prometheus at ${promHost}: ready, answers queries (N ms)`);
      expect(lines).toContain(`alertmanager   Alertmanager at ${amHost}: ready, status read (N ms)`);
      expect(lines).toContain(
        `webhook pause  pause notices (json) to 127.0.0.1:${new URL(hook).port}: test notice delivered (HTTP 200, N ms)`,
      );
      expect(lines.find((line) => line.startsWith("database "))).toMatch(
        /^database +SQLite .*doctor-\d+\.sqlite opens$/,
      );
      expect(lines.at(-2)).toMatch(/^All good: \d+ tools, database ready\.$/);
      expect(result.code).toBe(0);
      expect(notices).toEqual([{ type: "test", text: expect.stringContaining("opspilot doctor: a test notice") }]);
    });
  });
});
