import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildToolRegistry, startToolSources } from "../../src/app/sources/tool-catalog.js";
import { parseConfig } from "../../src/config/file.js";
import { filesystemServer } from "../fixtures/mcp-servers.js";

const root = mkdtempSync(join(tmpdir(), "opspilot-lazy-mcp-"));
writeFileSync(join(root, "note.txt"), "hello");
const errors: string[] = [];
const logger = { error: (message: string) => void errors.push(message) };
const config = parseConfig({ demo: false, mcpServers: { files: filesystemServer(root) } }, {});

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("MCP servers started in the background (the LangGraph host and createApp), with the client loaded on demand", () => {
  it("reports the server unavailable with no tools at first, then offers its tools once connected", async () => {
    const sources = startToolSources(config, logger);
    const registry = buildToolRegistry({ config, builtIn: [], sources, logger });
    expect(sources.map((source) => source.health())).toEqual([[{ server: "files", available: false }]]);
    expect(registry.names()).toEqual([]);
    await until(() => registry.names().length > 0);
    expect(registry.names()).toContain("files__read_text_file");
    expect(sources[0]!.health()).toEqual([{ server: "files", available: true }]);
    await Promise.all(sources.map((source) => source.close()));
    expect(errors).toEqual([]);
  });

  it("closes cleanly when closed before the client has loaded", async () => {
    const sources = startToolSources(config, logger);
    await Promise.all(sources.map((source) => source.close()));
    expect(sources[0]!.tools()).toEqual([]);
    expect(errors).toEqual([]);
  });
});
