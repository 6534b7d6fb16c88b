import { ScriptedChatModel, type ScriptStep } from "../../fixtures/scripted-model.js";
import { runChecks, scoreOf, type CheckName } from "../../../src/eval/checks/index.js";
import { openEvalApp } from "../../../src/eval/app/eval-app.js";
import { parseScenarios } from "../../../src/eval/load-scenarios.js";
import { runScenario } from "../../../src/eval/run-scenario.js";

/** Runs one scenario (YAML text) against a scripted model through the eval's app and scores it. */
export async function judge(yaml: string, script: ScriptStep[], options: { configPath?: string } = {}) {
  const [{ scenario }] = parseScenarios(yaml, "test.yaml");
  const model = new ScriptedChatModel({ script });
  const opened = await openEvalApp({
    variables: {},
    chatModel: model,
    configPath: options.configPath,
    faults: scenario!.faults,
  });
  try {
    const trace = await runScenario({ runtime: opened.app.runtime, tools: opened.tools }, scenario!);
    const checks = runChecks({ scenario: scenario!, trace, registry: opened.app.registry });
    return {
      trace,
      checks,
      score: scoreOf(checks),
      /** The verdict of one check (throws when the check did not apply). */
      check(name: CheckName) {
        const found = checks.find((check) => check.name === name);
        if (!found) throw new Error(`check ${name} did not apply: ${JSON.stringify(checks)}`);
        return found;
      },
      failed: checks.filter((check) => !check.passed).map((check) => check.name),
    };
  } finally {
    await opened.close();
  }
}
