#!/usr/bin/env node
/**
 * `npm run dev`: the LangGraph dev server for the opspilot graph (langgraph.json), offline,
 * analytics off, bound to loopback, on a free port. Usage:
 *   npm run dev [-- <port> | --port <port>] [-- <other langgraph-cli dev flags, e.g. --no-reload>]
 * Port: argument, else LANGGRAPH_PORT, else 2124 or the next free one (2024 is often taken).
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";

const HOST = "127.0.0.1";
const DEFAULT_PORT = 2124;
const PORT_SCAN = 20;
const READY_TIMEOUT_MS = 180_000;

/** Splits our own port argument from the flags passed through to `langgraph-cli dev`. */
function parseArgs(argv) {
  const passThrough = [];
  let port;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === "--port" || arg === "-p") port = argv[++index];
    else if (arg.startsWith("--port=")) port = arg.slice("--port=".length);
    else if (/^\d+$/.test(arg) && port === undefined) port = arg;
    else if (arg === "--host" || arg === "-h")
      index++; // the server stays on loopback
    else passThrough.push(arg);
  }
  return { port, passThrough };
}

/** Whether nothing listens on `port` at the loopback address. */
function isFree(port) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ port, host: HOST, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** The port to serve on: an explicit one must be free; the default moves up to the next free one. */
async function choosePort(requested) {
  if (requested !== undefined) {
    const port = Number(requested);
    if (!Number.isInteger(port) || port < 1 || port > 65_535)
      fail(`Port "${requested}" is not a number from 1 to 65535.`);
    if (!(await isFree(port)))
      fail(`Port ${port} on ${HOST} is in use; pick another with LANGGRAPH_PORT=<port> or "npm run dev -- <port>".`);
    return port;
  }
  for (let port = DEFAULT_PORT; port < DEFAULT_PORT + PORT_SCAN; port++) if (await isFree(port)) return port;
  fail(`Ports ${DEFAULT_PORT}-${DEFAULT_PORT + PORT_SCAN - 1} on ${HOST} are all in use; set LANGGRAPH_PORT=<port>.`);
}

function fail(message) {
  console.error(`opspilot dev: ${message}`);
  process.exit(1);
}

/** Path of the `langgraphjs` bin of the installed @langchain/langgraph-cli (no npx download). */
function cliPath() {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve("@langchain/langgraph-cli/package.json");
  return join(dirname(manifestPath), require(manifestPath).bin.langgraphjs);
}

/** Polls `/info` (the one route the server's auth lets through) until it answers, the child exits or the time runs out. */
async function waitUntilReady(apiUrl, child) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 2_000);
    try {
      const response = await fetch(`${apiUrl}/info`, { signal: controller.signal });
      if (response.ok) return true;
    } catch {
      // not listening yet
    } finally {
      clearTimeout(timer);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

const { port: requested, passThrough } = parseArgs(process.argv.slice(2));
const port = await choosePort(requested ?? (process.env.LANGGRAPH_PORT?.trim() || undefined));
const apiUrl = `http://${HOST}:${port}`;
const started = Date.now();
const child = spawn(
  process.execPath,
  [cliPath(), "dev", "--port", String(port), "--host", HOST, "--no-browser", ...passThrough],
  {
    stdio: "inherit",
    env: { ...process.env, LANGGRAPH_CLI_NO_ANALYTICS: "1", BROWSER: "none" },
  },
);

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (child.exitCode === null) child.kill(signal);
  });
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));

if (await waitUntilReady(apiUrl, child)) {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    [
      "",
      `opspilot: LangGraph server ready in ${seconds} s (graph "opspilot", CLI analytics off)`,
      `  API:    ${apiUrl}   (SDK: new Client({ apiUrl: "${apiUrl}" }))`,
      `  Studio: https://smith.langchain.com/studio/?baseUrl=${apiUrl}`,
      "",
    ].join("\n"),
  );
} else if (child.exitCode === null) {
  console.error(
    `opspilot dev: the server did not answer ${apiUrl}/info within ${READY_TIMEOUT_MS / 1000} s; still waiting on it.`,
  );
}
