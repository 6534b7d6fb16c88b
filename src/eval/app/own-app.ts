import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ToolRegistry } from "../../tools/registry.js";
import { openEvalApp } from "./eval-app.js";
import type { Scenario } from "../scenario-schema.js";
import { runScenario } from "../run-scenario.js";
import { scriptedModel, startStandins, type StartedStandins } from "./standins.js";
import type { ScenarioTrace } from "../trace.js";

/** How a scenario with its own app runs: the evaluation's model and config. */
export interface OwnAppOptions {
  variables: Readonly<Record<string, string | undefined>>;
  model?: string;
  chatModel?: BaseChatModel;
  configPath?: string;
  /** The scenario's `script` replaces the model (the evaluation runs the demo model). */
  scripted: boolean;
  /** Checks the scenario's tool names against its app's tools (throws a usage error). */
  checkTools(registry: ToolRegistry): void;
}

/** Whether a scenario needs an app of its own: it names stand-ins, or a script that replaces the model. */
export function needsOwnApp(scenario: Scenario, scripted: boolean): boolean {
  return scenario.standin !== undefined || (scripted && scenario.script !== undefined);
}

/**
 * Runs one scenario on an app of its own: its stand-ins started on loopback and their toolsets
 * configured, its script as the model when `scripted`; everything is closed afterwards.
 */
export async function runOnOwnApp(
  scenario: Scenario,
  options: OwnAppOptions,
): Promise<{ trace: ScenarioTrace; registry: ToolRegistry; logged: string[] }> {
  let standins: StartedStandins | undefined;
  try {
    standins = scenario.standin ? await startStandins(scenario.standin) : undefined;
    const script = options.scripted ? scenario.script : undefined;
    const opened = await openEvalApp({
      variables: options.variables,
      model: options.model,
      chatModel: script ? await scriptedModel(script) : options.chatModel,
      configPath: options.configPath,
      faults: scenario.faults,
      toolsets: standins?.toolsets,
    });
    try {
      options.checkTools(opened.app.registry);
      const trace = await runScenario({ runtime: opened.app.runtime, tools: opened.tools }, scenario);
      return { trace, registry: opened.app.registry, logged: opened.logged };
    } finally {
      await opened.close();
    }
  } finally {
    await standins?.close();
  }
}
