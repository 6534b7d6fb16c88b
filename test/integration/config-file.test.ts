import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/file.js";
import type { ToolView } from "../../src/tools/tool-view.js";
import { runCliProcess, type CliResult } from "../fixtures/cli-process.js";
import { ApiClient, startTestServer, type TestServer } from "../fixtures/http.js";

const TOKENS = new Map([
  ["viewer-token-0001", { id: "vera", role: "viewer" }],
  ["admin-token-0002", { id: "ada", role: "admin" }],
]);

/** Read tools open to everyone, `search_logs` narrowed to operators and admins, metrics turned off. */
const POLICY = {
  $schema: "../opspilot.config.schema.json",
  tools: {
    "search_*": { rateLimit: { perMinute: 30, perUserPerMinute: 5 } },
    search_logs: { roles: ["operator", "admin"], timeoutMs: 4_000, fallback: ["search_docs"] },
    get_service_metrics: { enabled: false },
    restart_service: { idempotent: true },
  },
};

/** What `policySource` says of a tool whose readOnly, risk and idempotent no config entry set. */
const BUILT_IN = { readOnly: "built-in", risk: "built-in", idempotent: "built-in", egress: "built-in" };

const lines = (text: string) => text.split("\n").filter((line) => line.length > 0);

/** A refusal of the whole process: one line on stderr, nothing on stdout, exit 2, no stack trace. */
function expectOneLine(result: CliResult, line: string): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(lines(result.stderr)).toEqual([line]);
}

describe("the config file (OPSPILOT_CONFIG)", { timeout: 90_000 }, () => {
  let directory: string;
  let db: string;
  const file = (name: string, content: unknown) => {
    const path = join(directory, name);
    writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
    return path;
  };

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "opspilot-config-it-"));
    db = join(directory, "opspilot.sqlite");
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("stops the CLI with exit 2 and one line naming the key for an unknown key, a bad glob, a missing command or an unset variable", async () => {
    const unknownKey = file("unknown-key.json", { tools: {}, mcpServer: {} });
    const badGlob = file("bad-glob.json", { tools: { "k8s__[a-z]*": { risk: "high" } } });
    const noCommand = file("no-command.json", { mcpServers: { fs: { args: ["-y", "server-filesystem"] } } });
    const unsetVariable = file("unset.json", { mcpServers: { prom: { url: "${OPSPILOT_TEST_UNSET_URL}" } } });
    const [first, second, third, fourth] = await Promise.all(
      [unknownKey, badGlob, noCommand, unsetVariable].map((path) =>
        runCliProcess(["ask", "hi"], { db, env: { OPSPILOT_CONFIG: path } }),
      ),
    );
    expectOneLine(
      first!,
      `opspilot: ${unknownKey}: mcpServer: unknown key (expected one of: $schema, mcpServers, toolsets, tools, runbooks, demo, auth, profiles, chat, schedules) [config_invalid]`,
    );
    expectOneLine(
      second!,
      `opspilot: ${badGlob}: tools."k8s__[a-z]*": must be a tool name or a glob using * and ? [config_invalid]`,
    );
    expectOneLine(
      third!,
      `opspilot: ${noCommand}: mcpServers.fs: must have either "command" (stdio) or "url" (Streamable HTTP or SSE) [config_invalid]`,
    );
    expectOneLine(
      fourth!,
      `opspilot: ${unsetVariable}: mcpServers.prom.url: \${OPSPILOT_TEST_UNSET_URL} is not set in the environment [config_invalid]`,
    );
  });

  it("stops the server (npm start) with exit 2 and the same line", async () => {
    const badGlob = file("server-bad-glob.json", { tools: { "a[b": { enabled: false } } });
    const result = await runCliProcess([], {
      db,
      entry: "src/main.ts",
      env: { OPSPILOT_CONFIG: badGlob, PORT: "0" },
    });
    expectOneLine(result, `opspilot: ${badGlob}: tools."a[b": must be a tool name or a glob using * and ?`);
  });

  it("prints every tool's effective policy as a table with --tools, variables filled from the environment", async () => {
    const path = file("policy.json", { ...POLICY, $schema: "${OPSPILOT_TEST_SCHEMA_DIR}/opspilot.config.schema.json" });
    const result = await runCliProcess(["ask", "--tools"], {
      db,
      env: { OPSPILOT_CONFIG: path, OPSPILOT_TEST_SCHEMA_DIR: ".." },
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toEqual([
      `Config file: ${path} (OPSPILOT_CONFIG) · MCP servers: none`,
      "TOOL             KIND                RISK  EGRESS  TRUSTED  ROLES           ASKS FOR     TIMEOUT  RATE LIMIT              FALLBACK     SOURCE    POLICY FROM                                             STATUS",
      "search_resource  read                low   no      no       any             -            5 s      30/min, 5/min per user  -            built-in  built-in                                                available",
      "search_logs      read                low   no      no       operator,admin  environment  4 s      30/min, 5/min per user  search_docs  built-in  built-in                                                available",
      "search_docs      read                low   no      no       any             -            5 s      30/min, 5/min per user  -            built-in  built-in                                                available",
      'restart_service  write (idempotent)  high  no      no       operator,admin  environment  10 s     -                       -            built-in  config tools["restart_service"] (idempotent), built-in  available',
      "rollback_deploy  write               high  no      no       admin           environment  10 s     -                       -            built-in  built-in                                                available",
      "read_result      read                low   no      no       any             -            5 s      -                       -            built-in  built-in                                                available",
    ]);
  });

  describe("over HTTP with a role override", () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ auth: { tokens: TOKENS }, config: parseConfig(POLICY, {}) });
    });
    afterAll(() => server.close());

    it("lists only the tools a viewer may call in GET /api/tools, with their effective policy", async () => {
      const response = await new ApiClient(server.url, "viewer-token-0001").request("GET", "/api/tools");
      expect(response.status).toBe(200);
      const { tools } = (await response.json()) as { tools: ToolView[] };
      const open = {
        readOnly: true,
        risk: "low",
        roles: null,
        askUser: [],
        timeoutMs: 5_000,
        idempotent: false,
        egress: false,
        trusted: false,
        policySource: BUILT_IN,
      };
      const limit = { perMinute: 30, perUserPerMinute: 5 };
      expect(tools).toEqual([
        {
          name: "search_resource",
          description: expect.any(String),
          ...open,
          rateLimit: limit,
          fallback: [],
          source: { tool: "search_resource" },
          available: true,
        },
        {
          name: "search_docs",
          description: expect.any(String),
          ...open,
          rateLimit: limit,
          fallback: [],
          source: { tool: "search_docs" },
          available: true,
        },
        {
          name: "read_result",
          description: expect.any(String),
          ...open,
          rateLimit: null,
          fallback: [],
          source: { tool: "read_result" },
          available: true,
        },
      ]);

      const admin = await new ApiClient(server.url, "admin-token-0002").request("GET", "/api/tools");
      const adminTools = ((await admin.json()) as { tools: ToolView[] }).tools;
      expect(adminTools.map((tool) => tool.name)).toEqual([
        "search_resource",
        "search_logs",
        "search_docs",
        "restart_service",
        "rollback_deploy",
        "read_result",
      ]);
      expect(adminTools[1]).toEqual({
        name: "search_logs",
        description: expect.any(String),
        readOnly: true,
        risk: "low",
        roles: ["operator", "admin"],
        askUser: [
          {
            name: "environment",
            description: "Which environment? prod (production / 生产环境) or staging (预发环境)",
            enum: ["prod", "staging"],
          },
        ],
        timeoutMs: 4_000,
        idempotent: false,
        egress: false,
        trusted: false,
        policySource: BUILT_IN,
        rateLimit: limit,
        fallback: ["search_docs"],
        source: { tool: "search_logs" },
        available: true,
      });
    });

    it("refuses the overridden tool to a viewer when the model proposes it", async () => {
      const viewer = new ApiClient(server.url, "viewer-token-0001");
      const threadId = await viewer.createThread();
      const events = await viewer.run(threadId, "看看支付服务最近报错");
      const results = events.filter((event) => event.type === "tool_result");
      expect(results.find((event) => event.tool === "search_logs")).toMatchObject({
        ok: false,
        errorCode: "permission_denied",
        summary: "permission_denied: Your role (viewer) is not allowed to use search_logs.",
      });
      expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    });
  });
});
