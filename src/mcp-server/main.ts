/**
 * `npm run mcp`: opspilot's demo tools as an MCP server over stdio, for Claude Desktop, Cursor
 * or opspilot itself. Stdout carries the protocol and nothing else; logs go to stderr.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { loadDotEnv, loadEnv } from "../config/env.js";
import { openSqlite } from "../storage/sqlite/open-sqlite.js";
import { demoToolsOn } from "../app/demo.js";
import { createToolServer } from "./tool-server.js";

// A stray console.log anywhere below would corrupt the protocol stream.
console.log = console.error;
console.info = console.error;

loadDotEnv();
const env = loadEnv();
const sqlite = openSqlite(env.OPSPILOT_DB);
const server = createToolServer(demoToolsOn(sqlite.db));

let closing = false;
async function shutdown(): Promise<void> {
  if (closing) return;
  closing = true;
  await server.close().catch(() => undefined);
  sqlite.close();
  process.exit(0);
}
// The client ends the server by closing its stdin (or with a signal, as npm forwards).
process.stdin.on("end", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());

await server.connect(new StdioServerTransport());
