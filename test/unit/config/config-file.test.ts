import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/contracts/errors.js";
import { DEFAULT_CONFIG, loadConfig, parseConfig, readConfigFile } from "../../../src/config/file.js";
import { CONFIG_SCHEMA_PATH, renderConfigSchema } from "../../../scripts/config-schema.js";

/** The one line a bad config gives, or "" when it is valid. */
function problem(value: unknown, variables: Record<string, string> = {}): string {
  try {
    parseConfig(value, variables);
    return "";
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

describe("the config file", () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "opspilot-config-"));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("is optional: without OPSPILOT_CONFIG the demo tools run with no servers and no policies", () => {
    expect(loadConfig(undefined, {})).toBe(DEFAULT_CONFIG);
    expect(DEFAULT_CONFIG).toEqual({ mcpServers: {}, tools: {}, demo: true, profiles: {} });
  });

  it("fills ${VAR} in every string value from the environment it is given, and $${ stays literal", () => {
    const path = join(directory, "vars.json");
    writeFileSync(
      path,
      JSON.stringify({
        mcpServers: {
          prom: { url: "${PROM_URL}/mcp", headers: { Authorization: "Bearer ${PROM_TOKEN}" } },
          k8s: { command: "npx", args: ["-y", "k8s-mcp", "--context=${KUBE_CONTEXT}", "$${NOT_A_VAR}"] },
        },
        runbooks: "${HOME_DIR}/runbooks",
      }),
    );
    const config = readConfigFile(path, {
      PROM_URL: "https://prom.example.com",
      PROM_TOKEN: "s3cr3t-token",
      KUBE_CONTEXT: "prod-eu",
      HOME_DIR: "/srv/ops",
    });
    expect(config).toEqual({
      mcpServers: {
        prom: { url: "https://prom.example.com/mcp", headers: { Authorization: "Bearer s3cr3t-token" } },
        k8s: { command: "npx", args: ["-y", "k8s-mcp", "--context=prod-eu", "${NOT_A_VAR}"] },
      },
      tools: {},
      runbooks: "/srv/ops/runbooks",
      demo: true,
      profiles: {},
    });
  });

  it("names every unset or blank variable with its key path, and never substitutes an empty string", () => {
    expect(
      problem(
        { mcpServers: { prom: { url: "${PROM_URL}", headers: { Authorization: "Bearer ${PROM_TOKEN}" } } } },
        { PROM_TOKEN: "  " },
      ),
    ).toBe(
      "opspilot.config.json: mcpServers.prom.url: ${PROM_URL} is not set in the environment; mcpServers.prom.headers.Authorization: ${PROM_TOKEN} is not set in the environment",
    );
  });

  it("reports each kind of mistake as one line naming the key path and the problem", () => {
    expect(problem({ tool: {} })).toBe(
      "opspilot.config.json: tool: unknown key (expected one of: $schema, mcpServers, toolsets, tools, runbooks, demo, auth, profiles, chat, schedules)",
    );
    expect(problem({ tools: { "a[b": { enabled: false } } })).toBe(
      'opspilot.config.json: tools."a[b": must be a tool name or a glob using * and ?',
    );
    expect(problem({ mcpServers: { fs: { args: ["/tmp"] } } })).toBe(
      'opspilot.config.json: mcpServers.fs: must have either "command" (stdio) or "url" (Streamable HTTP or SSE)',
    );
    expect(problem({ mcpServers: { fs: { command: "npx", args: "/tmp" } } })).toBe(
      "opspilot.config.json: mcpServers.fs.args: must be an array",
    );
    expect(problem({ mcpServers: { fs: { command: "npx", directory: "/tmp" } } })).toBe(
      "opspilot.config.json: mcpServers.fs.directory: unknown key (expected one of: command, args, env, cwd, trustAnnotations)",
    );
    expect(problem({ mcpServers: { prom: { url: "ftp://prom" } } })).toBe(
      "opspilot.config.json: mcpServers.prom.url: must be an http(s) URL",
    );
    expect(problem({ tools: { "k8s__*": { risk: "medium", roles: ["root"], timeoutMs: 2.5 } } })).toBe(
      'opspilot.config.json: tools."k8s__*".risk: must be one of "low", "high"; tools."k8s__*".roles[0]: must be one of viewer, operator, admin; tools."k8s__*".timeoutMs: must be an integer',
    );
    expect(problem({ tools: { search_logs: { rateLimit: { perMinute: 0 } } }, demo: "no" })).toBe(
      "opspilot.config.json: tools.search_logs.rateLimit.perMinute: must be at least 1; demo: must be true or false",
    );
    expect(problem([])).toBe("opspilot.config.json: the file must hold one JSON object");
  });

  it("reports broken JSON with its line and column, and a missing file, naming the path", () => {
    const broken = join(directory, "broken.json");
    writeFileSync(broken, '{\n  "demo": true,\n  "tools": {\n    "x": { "enabled": false },\n  }\n}\n');
    expect(() => readConfigFile(broken, {})).toThrow(
      new ConfigError(`${broken}: invalid JSON at line 5, column 3: Expected double-quoted property name`),
    );
    const missing = join(directory, "nope.json");
    expect(() => readConfigFile(missing, {})).toThrow(
      new ConfigError(`${missing}: cannot read the file (no such file)`),
    );
  });

  it("publishes a JSON Schema that matches the zod schema (run npm run config-schema after changing it)", async () => {
    expect(readFileSync(CONFIG_SCHEMA_PATH, "utf8")).toBe(await renderConfigSchema());
  });
});
