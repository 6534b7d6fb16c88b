import type { ToolSource } from "../tools/source.js";

/** One MCP server as `/healthz` shows it. */
export interface ServerStatus {
  /** Its name in `mcpServers`. */
  name: string;
  status: "up" | "down";
  /** Why it is down: a short reason without paths or output (`/healthz` needs no token). */
  error?: string;
}

/**
 * What `/healthz` answers, always with HTTP 200: the process itself serves. A down MCP
 * server makes it `degraded` (`ok: false`) and is named, so monitoring can alert on it,
 * but an orchestrator's liveness probe must not restart opspilot over a server it does
 * not run: a restart would not bring that server back, and would end the runs in progress.
 */
export interface HealthReport {
  ok: boolean;
  status: "ok" | "degraded";
  /** Every configured MCP server; absent when there are none. */
  servers?: ServerStatus[];
}

/** The health of the process from its tool sources' last known server status (no probing). */
export function healthReport(sources: readonly ToolSource[]): HealthReport {
  const servers: ServerStatus[] = sources.flatMap((source) =>
    source.health().map((server) => ({
      name: server.server,
      status: server.available ? ("up" as const) : ("down" as const),
      ...(server.available ? {} : { error: server.reason ?? "unreachable" }),
    })),
  );
  const ok = servers.every((server) => server.status === "up");
  return { ok, status: ok ? "ok" : "degraded", ...(servers.length > 0 ? { servers } : {}) };
}
