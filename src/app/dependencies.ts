import type { Env } from "../config/env.js";
import type { ConfigFile } from "../config/schema.js";
import { parseModelSpec } from "../models/providers/provider.js";
import { mcpProbes } from "../service/probes/mcp-probes.js";
import { modelProbe } from "../service/probes/model-probe.js";
import type { DependencyProbe } from "../service/probes/probe.js";
import { toolsetProbes } from "../service/probes/toolset-probes.js";
import type { ToolSource } from "../tools/source.js";

/**
 * What a serving process depends on, probed as doctor probes it: the configured model (one
 * small request offering a tool), each toolset, and each MCP server read from its source's
 * last known health (a probe never spawns a server). A model setting that does not parse
 * has no probe: the process did not start with it.
 */
export function dependencyProbesOf(env: Env, config: ConfigFile, sources: readonly ToolSource[]): DependencyProbe[] {
  return [...modelProbeOf(env), ...toolsetProbes(config.toolsets ?? {}), ...sources.flatMap(mcpProbes)];
}

function modelProbeOf(env: Env): DependencyProbe[] {
  try {
    parseModelSpec(env);
  } catch {
    return [];
  }
  return [modelProbe(env)];
}
