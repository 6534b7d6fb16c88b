import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { runChecks, scoreOf } from "./checks/index.js";
import { openEvalApp } from "./app/eval-app.js";
import { EvalUsageError } from "./eval-error.js";
import type { LoadedScenario } from "./load-scenarios.js";
import { reportScenario, summarize, type EvalReport, type ScenarioRun } from "./report/report.js";
import { needsOwnApp, runOnOwnApp } from "./app/own-app.js";
import { runScenario } from "./run-scenario.js";
import type { Scenario } from "./scenario-schema.js";
import type { ToolRegistry } from "../tools/registry.js";

/** How to run an evaluation. */
export interface EvalOptions {
  /** The scenarios, validated. */
  scenarios: readonly LoadedScenario[];
  /** The environment's variables. */
  variables: Readonly<Record<string, string | undefined>>;
  /** `demo`, `openai:<model>` or `anthropic:<model>`; the configured model when omitted. */
  model?: string;
  /** A chat model object instead (tests). */
  chatModel?: BaseChatModel;
  /** The config file; `OPSPILOT_CONFIG` when omitted. */
  configPath?: string;
  /** Runs of each scenario (for models that are not deterministic). */
  repeat: number;
  /** Scenarios running at once. */
  concurrency: number;
  /** Told after each run finishes: how many of how many, and which. */
  onProgress?: (done: number, total: number, scenario: Scenario, run: ScenarioRun) => void;
}

/** What an evaluation produced: the report, each scenario's runs (with traces) and what the app logged. */
export interface EvalResult {
  report: EvalReport;
  /** Runs by scenario id, in repeat order. */
  runs: Map<string, ScenarioRun[]>;
  /** Failures the app logged (model or tool crashes), for the terminal. */
  logged: string[];
}

/** Runs every scenario (each `repeat` times, `concurrency` at once) on a fresh thread and scores it. */
export async function runEval(options: EvalOptions): Promise<EvalResult> {
  const startedAt = new Date();
  const opened = await openEvalApp({
    variables: options.variables,
    model: options.model,
    chatModel: options.chatModel,
    configPath: options.configPath,
    faults: options.scenarios.flatMap(({ scenario }) => scenario.faults),
  });
  // A scenario's script stands in for the demo model only; any other model answers it itself.
  const scripted = opened.model === "demo" && !options.chatModel;
  const own = (scenario: Scenario) => needsOwnApp(scenario, scripted);
  try {
    checkToolNames(
      options.scenarios.filter(({ scenario }) => !own(scenario)),
      opened.app.registry,
    );
    // Scenarios on apps of their own take longest: started first, they run beside the others.
    const jobs = [...options.scenarios]
      .sort((a, b) => Number(own(b.scenario)) - Number(own(a.scenario)))
      .flatMap((loaded) => Array.from({ length: options.repeat }, (_, index) => ({ loaded, index })));
    const runs = new Map<string, ScenarioRun[]>(options.scenarios.map(({ scenario }) => [scenario.id, []]));
    let done = 0;
    const runOne = async (loaded: LoadedScenario) => {
      if (!own(loaded.scenario))
        return {
          trace: await runScenario({ runtime: opened.app.runtime, tools: opened.tools }, loaded.scenario),
          registry: opened.app.registry,
        };
      const result = await runOnOwnApp(loaded.scenario, {
        ...{ variables: options.variables, model: options.model, chatModel: options.chatModel },
        ...{ configPath: options.configPath, scripted },
        checkTools: (registry) => checkToolNames([loaded], registry),
      });
      opened.logged.push(...result.logged);
      return result;
    };
    await inPool(jobs, options.concurrency, async ({ loaded, index }) => {
      const { trace, registry } = await runOne(loaded);
      const checks = runChecks({ scenario: loaded.scenario, trace, registry });
      const run: ScenarioRun = { checks, score: scoreOf(checks), trace };
      runs.get(loaded.scenario.id)![index] = run;
      done += 1;
      options.onProgress?.(done, jobs.length, loaded.scenario, run);
    });
    const scenarios = options.scenarios.map(({ scenario, file }) =>
      reportScenario(scenario, file, runs.get(scenario.id)!),
    );
    const report: EvalReport = {
      model: opened.model,
      startedAt: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      repeat: options.repeat,
      scenarios,
      summary: summarize(scenarios),
    };
    return { report, runs, logged: opened.logged };
  } finally {
    await opened.close();
  }
}

/** Runs `work` over the items with at most `limit` at once. */
async function inPool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/** Every tool a scenario relies on exists in the app (the demo tools and the config's MCP tools). */
function checkToolNames(scenarios: readonly LoadedScenario[], registry: Pick<ToolRegistry, "get" | "names">): void {
  for (const { scenario, file } of scenarios) {
    const named: Array<[string, string]> = [
      ...scenario.expect.tools.required.map((tool, i): [string, string] => [`expect.tools.required[${i}]`, tool]),
      ...scenario.expect.tools.order.flatMap((pair, i) =>
        pair.map((tool, j): [string, string] => [`expect.tools.order[${i}][${j}]`, tool]),
      ),
      ...scenario.expect.args.map((arg, i): [string, string] => [`expect.args[${i}].tool`, arg.tool]),
      ...scenario.faults.map((fault, i): [string, string] => [`faults[${i}].tool`, fault.tool]),
      ...scenario.pauses.flatMap((pause, i): Array<[string, string]> =>
        pause.tool ? [[`pauses[${i}].tool`, pause.tool]] : [],
      ),
    ];
    for (const [field, tool] of named) {
      if (registry.get(tool)) continue;
      throw new EvalUsageError(
        `${file}: scenario "${scenario.id}": ${field}: unknown tool "${tool}" (this app has: ${registry.names().join(", ")})`,
      );
    }
  }
}
