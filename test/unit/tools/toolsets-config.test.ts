import { describe, expect, it } from "vitest";
import { builtInTools } from "../../../src/app/sources/runbooks.js";
import { buildToolRegistry } from "../../../src/app/sources/tool-catalog.js";
import { parseConfig } from "../../../src/config/file.js";
import { ConfigError } from "../../../src/contracts/errors.js";
import type { OpsStore } from "../../../src/demo/index.js";

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

const quiet = { error: () => undefined };

/** The registry an app would build from this config, without the demo tools. */
function registryOf(value: Record<string, unknown>) {
  const config = parseConfig({ demo: false, ...value }, {});
  const builtIn = builtInTools({ config, ops: undefined as unknown as OpsStore, runbooks: undefined });
  return buildToolRegistry({ config, builtIn, sources: [], logger: quiet });
}

describe("the toolsets config", () => {
  it("refuses a typo'd URL, an unknown toolset and a bad timeout in one line each", () => {
    expect(problem({ toolsets: { prometheus: { url: "htp://prometheus:9090" } } })).toBe(
      "opspilot.config.json: toolsets.prometheus.url: must be an http(s) URL",
    );
    expect(problem({ toolsets: { alertmanager: { url: "alertmanager:9093" } } })).toBe(
      "opspilot.config.json: toolsets.alertmanager.url: must be an http(s) URL",
    );
    expect(problem({ toolsets: { prometeus: { url: "http://prometheus:9090" } } })).toBe(
      "opspilot.config.json: toolsets.prometeus: unknown key (expected one of: prometheus, alertmanager, loki, elasticsearch, kubernetes, github)",
    );
    expect(problem({ toolsets: { prometheus: { url: "http://p:9090", timeoutMs: 5 } } })).toBe(
      "opspilot.config.json: toolsets.prometheus.timeoutMs: must be at least 100",
    );
  });

  it("fills ${VAR} in a toolset's URL and headers, and names a variable that is not set", () => {
    const config = parseConfig(
      { toolsets: { prometheus: { url: "${PROM_URL}", headers: { Authorization: "Bearer ${PROM_TOKEN}" } } } },
      { PROM_URL: "https://prom.internal:9090", PROM_TOKEN: "t0k3n" },
    );
    expect(config.toolsets).toEqual({
      prometheus: { url: "https://prom.internal:9090", headers: { Authorization: "Bearer t0k3n" } },
    });
    expect(
      problem({ toolsets: { prometheus: { url: "http://p:9090", headers: { Authorization: "${PROM_TOKEN}" } } } }),
    ).toBe(
      "opspilot.config.json: toolsets.prometheus.headers.Authorization: ${PROM_TOKEN} is not set in the environment",
    );
  });

  it("registers each toolset's tools only when its server is named", () => {
    expect(
      registryOf({})
        .tools()
        .map((tool) => tool.name),
    ).toEqual([]);
    expect(
      registryOf({ toolsets: { prometheus: { url: "http://p:9090" } } })
        .tools()
        .map((tool) => tool.name),
    ).toEqual(["prometheus_query", "prometheus_query_range", "prometheus_alerts", "prometheus_metric_names"]);
    const alertmanager = registryOf({ toolsets: { alertmanager: { url: "http://a:9093" } } });
    expect(alertmanager.tools().map((tool) => [tool.name, tool.readOnly, tool.risk])).toEqual([
      ["alertmanager_silences", true, "low"],
      ["alertmanager_create_silence", false, "high"],
      ["alertmanager_expire_silence", false, "high"],
    ]);
  });

  it("applies the config's tools policies to them like to any tool", () => {
    const registry = registryOf({
      toolsets: { prometheus: { url: "http://p:9090", timeoutMs: 2_000 }, alertmanager: { url: "http://a:9093" } },
      tools: { "alertmanager_*": { roles: ["admin"] }, prometheus_query: { rateLimit: { perUserPerMinute: 5 } } },
    });
    expect(registry.get("alertmanager_create_silence")?.roles).toEqual(["admin"]);
    expect(registry.get("alertmanager_silences")?.roles).toEqual(["admin"]);
    expect(registry.get("prometheus_query")?.rateLimit).toEqual({ perUserPerMinute: 5 });
    expect(registry.get("prometheus_query")?.timeoutMs).toBe(3_000);
  });
});
