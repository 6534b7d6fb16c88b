import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliHere } from "../fixtures/cli-process.js";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/assemble.js";
import { loadEnv } from "../../src/config/env.js";
import { parseConfig } from "../../src/config/file.js";
import { ScriptedChatModel } from "../fixtures/scripted-model.js";
import { egressPostScript, egressTestTools, PLANTED_LOG_LINE, testTools } from "../fixtures/test-tools.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-cli-egress-"));
let databases = 0;
const QUESTION = "Tell #ops what the payment-service logs say";
const ARGS = { channel: "#ops", message: `payment-service logs say "${PLANTED_LOG_LINE}"` };

/** Runs the CLI in this process over a model that reads `tail_logs` and then posts what it read; `input` is piped in. */
async function cli(argv: string[], input = "", sent: Array<{ channel: string; message: string }> = []) {
  return runCliHere(argv, {
    input,
    createApp: () =>
      createApp({
        env: loadEnv({}),
        dbPath: join(directory, `cli-${++databases}.sqlite`),
        model: new ScriptedChatModel({ script: egressPostScript(ARGS) }),
        tools: () => [...testTools(), ...egressTestTools({ sent })],
        config: parseConfig({ tools: { read_a: { trusted: true } } }, {}),
      }),
  });
}

const MARKED_ARGS = `{"channel":"#ops","message":"payment-service logs say \\"«${PLANTED_LOG_LINE}»\\""}`;

describe("an egress call's pause in the CLI (issue 30)", () => {
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("marks the copied text «…» without colours, names its source, and prints how to answer", async () => {
    const { code, out, err } = await cli(["ask", "--no-input", QUESTION]);
    expect(err).toBe("");
    expect(code).toBe(0);
    const lines = out.split("\n");
    expect(lines).toContainEqual(
      expect.stringMatching(/^⚠ Waiting for your approval .*notify_channel sends data out after the thread read/),
    );
    // The call as the pause lists it (the step's "→ [2]" line before it shows the plain args).
    const callLine = lines.find((line) => /^ {2}\[\d+\] notify_channel /.test(line));
    expect(callLine).toContain(` notify_channel ${MARKED_ARGS}  · high risk`);
    expect(lines).toContain("      sends data out; the thread read content from: tail_logs");
    expect(lines).toContain("      «…» copied from tail_logs (message)");
    expect(lines).toContain("To answer, run one of:");
    // The untrusted read's result line is as before: the marks are the pause's alone.
    expect(out).not.toContain("«ERROR");
  });

  it("asks in place with the copied text marked, and posts it once approved", async () => {
    const sent: Array<{ channel: string; message: string }> = [];
    const { code, out } = await cli(["chat"], `${QUESTION}\na\n/exit\n`, sent);
    expect(code).toBe(0);
    expect(out).toContain(`high risk: notify_channel ${MARKED_ARGS}`);
    expect(sent).toEqual([ARGS]);
    expect(out).toContain("Posted to #ops.");
  });

  it("shows EGRESS and TRUSTED for each tool with --tools, and both in --tools --json", async () => {
    const { code, out } = await cli(["ask", "--tools"]);
    expect(code).toBe(0);
    const rows = out
      .trim()
      .split("\n")
      .slice(2)
      .map((line) => line.split(/ {2,}/));
    const header = rows[0]!;
    expect(header.slice(0, 6)).toEqual(["TOOL", "KIND", "RISK", "EGRESS", "TRUSTED", "ROLES"]);
    const cells = (name: string) => rows.find((row) => row[0] === name)?.slice(3, 5);
    expect(cells("notify_channel")).toEqual(["yes", "no"]);
    expect(cells("tail_logs")).toEqual(["no", "no"]);
    // Trusted by the config file.
    expect(cells("read_a")).toEqual(["no", "yes"]);

    const json = JSON.parse((await cli(["ask", "--tools", "--json"])).out) as {
      tools: Array<{ name: string; egress: boolean; trusted: boolean }>;
    };
    const flags = (name: string) => json.tools.find((tool) => tool.name === name);
    expect(flags("notify_channel")).toMatchObject({ egress: true, trusted: false });
    expect(flags("read_a")).toMatchObject({ egress: false, trusted: true });
  });
});
