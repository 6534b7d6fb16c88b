/**
 * `npm run soak`: the fault suites of issue 10 at full size — random loop scripts, SIGKILLs
 * on SQLite and PostgreSQL, two-process resume races, malformed HTTP requests and hijacked-
 * model injections. Prints a table of figures per suite and exits non-zero on any violation
 * (or when a suite ran short of its size within its time limit). Not part of `npm test`; CI
 * runs a small slice of each suite through vitest.
 *
 *   npm run soak                         full size, about 10 minutes on 2 cores
 *   npm run soak -- --quick              a few percent of each suite, about a minute
 *   npm run soak -- --only crash,race    some suites only
 *   npm run soak -- --crash 400          scale one suite (--property, --crash, --race, --http, --hijack)
 *   npm run soak -- --seed 7             other random cases (each suite's seed derives from it)
 *   npm run soak -- --backends sqlite    leave PostgreSQL out of the crash and race suites
 *   npm run soak -- --time-limit 600     stop every suite by then (900 s by default)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { table } from "../report.js";
import { runCrashSuite } from "../../test/fixtures/soak/crash-suite.js";
import { runHijackSuite } from "../../test/fixtures/soak/hijack-suite.js";
import { runHttpSuite } from "../../test/fixtures/soak/http-suite.js";
import { runPropertySuite } from "../../test/fixtures/soak/property-suite.js";
import { runRaceSuite } from "../../test/fixtures/soak/race-suite.js";
import type { Budget, SuiteReport } from "../../test/fixtures/soak/report.js";
import { bundleChildren } from "../../test/fixtures/ts-children.js";

/** The suites in the order they run. */
const SUITES = ["property", "crash", "race", "http", "hijack"] as const;
type Suite = (typeof SUITES)[number];
type Backend = "sqlite" | "postgres";

/** Cases per suite at full size (issue 10) and with `--quick`; time limits in seconds. */
const SIZES: Record<Suite, { full: number; quick: number; timeLimitS: number; what: string }> = {
  property: { full: 10_000, quick: 400, timeLimitS: 360, what: "random loop scripts" },
  crash: { full: 240, quick: 20, timeLimitS: 480, what: "SIGKILLs that landed" },
  race: { full: 1_200, quick: 60, timeLimitS: 240, what: "two-process resume races" },
  http: { full: 10_000, quick: 1_000, timeLimitS: 120, what: "malformed requests" },
  hijack: { full: 78, quick: 20, timeLimitS: 60, what: "injection cases" },
};

/** Parsed command line. */
interface SoakOptions {
  quick: boolean;
  only: Suite[];
  runs: Partial<Record<Suite, number>>;
  seed: number;
  backends: Backend[];
  /** Wall-time limit of the whole soak, in seconds: a suite that starts late gets what is left. */
  timeLimitS: number;
}

function usage(problem: string): never {
  console.error(`soak: ${problem}`);
  console.error(
    "usage: npm run soak -- [--quick] [--only <suite>[,<suite>]] [--<suite> <runs>] [--seed <n>] [--backends sqlite,postgres] [--time-limit <s>]",
  );
  console.error(`suites: ${SUITES.join(", ")}`);
  process.exit(64);
}

function parseArgs(argv: string[]): SoakOptions {
  const options: SoakOptions = {
    quick: false,
    only: [...SUITES],
    runs: {},
    seed: 1,
    backends: ["sqlite", "postgres"],
    timeLimitS: 900,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i]!;
    const value = () => argv[++i] ?? usage(`${flag} needs a value`);
    const count = () => {
      const parsed = Number(value());
      if (!Number.isInteger(parsed) || parsed < 0) usage(`${flag} takes a whole number`);
      return parsed;
    };
    if (flag === "--quick") options.quick = true;
    else if (flag === "--only") {
      const names = value().split(",");
      for (const name of names) if (!(SUITES as readonly string[]).includes(name)) usage(`unknown suite "${name}"`);
      options.only = names as Suite[];
    } else if (flag === "--seed") options.seed = count();
    else if (flag === "--time-limit") options.timeLimitS = count();
    else if (flag === "--backends") {
      const names = value().split(",");
      for (const name of names) if (name !== "sqlite" && name !== "postgres") usage(`unknown backend "${name}"`);
      options.backends = names as Backend[];
    } else if (SUITES.includes(flag.slice(2) as Suite)) options.runs[flag.slice(2) as Suite] = count();
    else usage(`unknown flag ${flag}`);
  }
  return options;
}

function budgetOf(suite: Suite, options: SoakOptions, remainingMs: number): Budget {
  const size = SIZES[suite];
  return {
    runs: options.runs[suite] ?? (options.quick ? size.quick : size.full),
    timeLimitMs: Math.max(0, Math.min(size.timeLimitS * 1000, remainingMs)),
    // Each suite its own seed, so scaling one suite does not change the cases of another.
    seed: options.seed * 1_000 + SUITES.indexOf(suite),
  };
}

function run(suite: Suite, budget: Budget, options: SoakOptions): Promise<SuiteReport> {
  switch (suite) {
    case "property":
      return runPropertySuite(budget, Math.min(2, availableParallelism()));
    case "crash":
      return runCrashSuite(budget, { backends: options.backends });
    case "race":
      return runRaceSuite(budget, { backends: options.backends });
    case "http":
      return runHttpSuite(budget);
    case "hijack":
      return runHijackSuite(budget);
    default: {
      const _exhaustive: never = suite;
      return _exhaustive;
    }
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Violations grouped by kind, with up to `perKind` details each. */
function violationLines(report: SuiteReport, perKind: number): string[] {
  const byKind = new Map<string, string[]>();
  for (const violation of report.violations)
    byKind.set(violation.kind, [...(byKind.get(violation.kind) ?? []), violation.detail]);
  return [...byKind].flatMap(([kind, details]) => [
    `  ${kind}: ${details.length}`,
    ...details.slice(0, perKind).map((detail) => `    - ${detail}`),
    ...(details.length > perKind ? [`    … ${details.length - perKind} more in the JSON report`] : []),
  ]);
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const progress = (line: string) => console.error(`[soak] ${line}`);
  progress(
    `node ${process.version}, ${availableParallelism()} cores, load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(" ")}, seed ${options.seed}`,
  );
  // Children start from bundles of their entry points, made once (test/fixtures/ts-children.ts).
  const removeBundles = await bundleChildren();
  const reports: SuiteReport[] = [];
  for (const suite of options.only) {
    const budget = budgetOf(suite, options, options.timeLimitS * 1000 - (performance.now() - started));
    progress(`${suite}: ${budget.runs} ${SIZES[suite].what}, at most ${seconds(budget.timeLimitMs)}`);
    let report: SuiteReport;
    try {
      report = await run(suite, budget, options);
    } catch (error) {
      report = {
        suite,
        planned: budget.runs,
        runs: 0,
        violations: [{ kind: "suite_failed", detail: (error as Error).stack ?? String(error) }],
        durationMs: 0,
        figures: {},
        notes: [],
      };
    }
    reports.push(report);
    progress(`${suite}: ${report.runs} run, ${report.violations.length} violations, ${seconds(report.durationMs)}`);
  }
  removeBundles();

  console.log(`\nFault suites (issue 10), seed ${options.seed}, ${seconds(performance.now() - started)} in all`);
  console.log(
    table(
      ["suite", "what", "runs", "planned", "violations", "duration"],
      reports.map((report) => [
        report.suite,
        SIZES[report.suite as Suite].what,
        report.runs,
        report.planned,
        report.violations.length,
        seconds(report.durationMs),
      ]),
    ),
  );
  for (const report of reports) {
    console.log(`\n${report.suite}`);
    for (const [figure, value] of Object.entries(report.figures).sort(([a], [b]) => a.localeCompare(b)))
      console.log(`  ${figure}: ${value}`);
    for (const note of report.notes) console.log(`  note: ${note}`);
    if (report.violations.length) console.log(["  VIOLATIONS", ...violationLines(report, 5)].join("\n"));
  }

  const resultsDir = fileURLToPath(new URL("../results/", import.meta.url));
  mkdirSync(resultsDir, { recursive: true });
  const jsonPath = `${resultsDir}soak-latest.json`;
  writeFileSync(jsonPath, `${JSON.stringify({ seed: options.seed, reports }, null, 2)}\n`);
  console.log(`\nFull report: ${jsonPath}`);

  const violations = reports.reduce((sum, report) => sum + report.violations.length, 0);
  const short = reports.filter((report) => report.runs < report.planned);
  if (short.length)
    console.log(
      `Ran short within the time limit: ${short.map((report) => `${report.suite} ${report.runs}/${report.planned}`).join(", ")}`,
    );
  if (violations > 0) console.log(`FAILED: ${violations} violation(s).`);
  process.exit(violations > 0 || short.length > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
