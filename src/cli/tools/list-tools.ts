import { resolve } from "node:path";
import type { App } from "../../app/assemble.js";
import { toolViews } from "../../tools/tool-view.js";
import { formatToolTable } from "./tools.js";

/** The config file an app read, as `--tools` reports it. */
export interface ConfigFileView {
  /** Absolute path of the file `OPSPILOT_CONFIG` names; null when it names none. */
  path: string | null;
  /** The MCP servers it configures, in file order. */
  mcpServers: string[];
}

/** Which config file the app runs with, and its MCP servers. */
export function configFileView(app: Pick<App, "env" | "config">): ConfigFileView {
  const path = app.env.OPSPILOT_CONFIG;
  return { path: path === undefined ? null : resolve(path), mcpServers: Object.keys(app.config.mcpServers) };
}

/** The line above the table: the file read (from the environment or `.env`), or that there is none. */
export function configFileLine(view: ConfigFileView): string {
  if (view.path === null)
    return "Config file: none (OPSPILOT_CONFIG is set neither in the environment nor in .env): the built-in tools as they are.";
  const servers = view.mcpServers.length > 0 ? view.mcpServers.join(", ") : "none";
  return `Config file: ${view.path} (OPSPILOT_CONFIG) · MCP servers: ${servers}`;
}

/**
 * What `--tools` prints: every tool, not only the caller's (this is where whoever runs opspilot
 * checks the config, and ROLES says who may call each), under the config file it came from.
 */
export function toolListing(app: App, json: boolean): string {
  const tools = toolViews(app.registry);
  const configFile = configFileView(app);
  if (json) return JSON.stringify({ configFile, tools });
  return [configFileLine(configFile), "", ...formatToolTable(tools)].join("\n");
}
