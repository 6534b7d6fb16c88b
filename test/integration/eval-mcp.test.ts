import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseScenarios } from "../../src/eval/load-scenarios.js";
import { runEval } from "../../src/eval/run-eval.js";
import { answerMessage, callsMessage, ScriptedChatModel } from "../fixtures/scripted-model.js";
import { filesystemServer } from "../fixtures/mcp-servers.js";

describe("npm run eval with the config file's MCP servers", () => {
  it("offers their tools, so scenarios can name them, and judges calls to them like any other", async () => {
    const folder = mkdtempSync(join(tmpdir(), "opspilot-eval-mcp-"));
    const workspace = join(folder, "workspace");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "oncall.txt"), "This week: INC-4242 is open; the payments on-call is Mei.\n");
    const configPath = join(folder, "opspilot.config.json");
    writeFileSync(configPath, JSON.stringify({ mcpServers: { fs: filesystemServer(workspace) } }));
    const scenarios = parseScenarios(
      `
scenarios:
  - id: mcp-read
    question: Which incident is open this week? Read oncall.txt
    expect:
      tools: { required: [fs__read_text_file], forbidden: [fs__write_file] }
      args:
        - { tool: fs__read_text_file, match: { path: { pattern: "oncall\\\\.txt$" } } }
      evidence: [INC-4242]
      fabrication: { patterns: { incident id: "\\\\bINC-\\\\d+\\\\b" } }
  - id: mcp-invented
    question: Which incident is open this week? Read oncall.txt
    expect:
      fabrication: { patterns: { incident id: "\\\\bINC-\\\\d+\\\\b" }, disable: [error code] }
`,
      "mcp.yaml",
    );
    const read = () => callsMessage([{ name: "fs__read_text_file", args: { path: join(workspace, "oncall.txt") } }]);
    const chatModel = new ScriptedChatModel({
      script: [read(), answerMessage("INC-4242 is open."), read(), answerMessage("INC-4242 and INC-5000 are open.")],
    });
    const { report } = await runEval({
      scenarios,
      variables: {},
      chatModel,
      configPath,
      repeat: 1,
      concurrency: 1,
    });
    expect(report.scenarios.map((scenario) => [scenario.id, scenario.passed])).toEqual([
      ["mcp-read", true],
      ["mcp-invented", false],
    ]);
    expect(report.scenarios[1]!.checks.find((check) => !check.passed)).toEqual({
      name: "fabrication",
      passed: false,
      detail: "incident id INC-5000 in the answer but in no observation",
    });
  }, 60_000);
});
