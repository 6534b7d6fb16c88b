import type { Toolsets, ToolsetEndpoint } from "../../config/toolsets-schema.js";
import { ToolError } from "../../contracts/errors.js";
import { alertmanagerBody } from "../../tools/toolsets/alertmanager-api.js";
import { createToolsetClient, type ToolsetClient } from "../../tools/toolsets/http-client.js";
import { prometheusData } from "../../tools/toolsets/prometheus-api.js";
import { lokiClient } from "../../tools/toolsets/loki/api.js";
import type { LokiInstance } from "../../config/log-toolsets-schema.js";
import type { DependencyProbe, ProbeResult } from "./probe.js";
import { firstLine } from "./probe.js";

/** One step of a toolset's check: a request that must succeed, and what it proves. */
interface Step {
  /** What a success says ("ready"). */
  proves: string;
  run(client: ToolsetClient, signal: AbortSignal): Promise<unknown>;
}

/** `/-/ready` answers 200 once the server serves; any other answer is the server saying it is not ready. */
const ready: Step = {
  proves: "ready",
  async run(client, signal) {
    const { status } = await client.send({ path: "/-/ready", signal });
    if (status !== 200)
      throw new ToolError("transient", `${client.label} is not ready (HTTP ${status} from /-/ready).`);
  },
};

/** The toolsets spoken to over plain HTTP, one instance or several named ones each (Kubernetes is a tool source of its own). */
type ProbedToolset = Exclude<keyof Toolsets, "kubernetes">;

/** A request that must answer 200 with any body: the server is up and takes our headers. */
function answers(proves: string, path: string, query?: Record<string, string>): Step {
  return {
    proves,
    async run(client, signal) {
      const { status } = await client.send({ path, query, signal });
      if (status !== 200) throw new ToolError("transient", `${client.label} answered HTTP ${status} to ${path}.`);
    },
  };
}

const STEPS: Record<ProbedToolset, { label: string; steps: Step[] }> = {
  prometheus: {
    label: "Prometheus",
    steps: [
      ready,
      {
        proves: "answers queries",
        run: (client, signal) => prometheusData(client, { path: "/api/v1/query", query: { query: "1" }, signal }),
      },
    ],
  },
  alertmanager: {
    label: "Alertmanager",
    steps: [
      ready,
      { proves: "status read", run: (client, signal) => alertmanagerBody(client, { path: "/api/v2/status", signal }) },
    ],
  },
  loki: { label: "Loki", steps: [answers("labels read", "/loki/api/v1/labels")] },
  elasticsearch: { label: "Elasticsearch", steps: [answers("cluster answers", "/")] },
  // With a bad token GitHub answers 401 here too, so the probe also checks the headers.
  github: { label: "GitHub", steps: [answers("token accepted", "/rate_limit")] },
};

/**
 * One probe per configured toolset, through the same client (URL, headers, time limit) its
 * tools use: Prometheus is ready and answers a trivial query; Alertmanager is ready and
 * serves its status. The line names the server's host (never the headers), what worked and
 * the latency, or the first step that failed and why.
 */
export function toolsetProbes(toolsets: Toolsets): DependencyProbe[] {
  return (Object.keys(STEPS) as ProbedToolset[]).flatMap((name) => {
    const configured = toolsets[name];
    if (!configured) return [];
    // A log toolset may name several instances; each is its own dependency.
    const endpoints: ReadonlyArray<ToolsetEndpoint & { name?: string }> = Array.isArray(configured)
      ? configured
      : [configured];
    return endpoints.map((endpoint) =>
      toolsetProbe(endpoints.length > 1 && endpoint.name ? `${name}:${endpoint.name}` : name, name, endpoint),
    );
  });
}

function toolsetProbe(dependency: string, name: ProbedToolset, endpoint: ToolsetEndpoint): DependencyProbe {
  const { label, steps } = STEPS[name];
  // Loki's client also sends the tenant (`X-Scope-OrgID`) its tools send.
  const client = name === "loki" ? lokiClient(endpoint as LokiInstance) : createToolsetClient(label, endpoint);
  const where = `${label} at ${new URL(endpoint.url).host}`;
  return {
    dependency,
    async check(signal): Promise<ProbeResult> {
      const started = performance.now();
      const took = () => `${Math.round(performance.now() - started)} ms`;
      for (const step of steps) {
        try {
          await step.run(client, signal);
        } catch (error) {
          return {
            dependency,
            ok: false,
            detail: `${where}: ${failureWords(label, error)} (${took()})${advice(name, error)}`,
          };
        }
      }
      return {
        dependency,
        ok: true,
        detail: `${where}: ${steps.map((step) => step.proves).join(", ")} (${took()})`,
      };
    },
  };
}

/** The client's message without its leading server name and final period ("could not be reached (ECONNREFUSED); …"). */
function failureWords(label: string, error: unknown): string {
  const message = error instanceof ToolError ? error.message : firstLine(error);
  return message.replace(new RegExp(`^${label}:? `), "").replace(/\.$/, "");
}

/** Where to look, when the failure is about reaching the server (a refusal's message already says where). */
function advice(name: ProbedToolset, error: unknown): string {
  const code = error instanceof ToolError ? error.errorCode : "internal";
  return code === "transient" || code === "timeout" || code === "not_found" ? `: check toolsets.${name}.url` : "";
}
