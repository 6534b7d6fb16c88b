import { describeToolKey } from "../../app/config-check.js";
import { environmentVariables, loadEnv, type Env } from "../../config/env.js";
import { loadConfig } from "../../config/file.js";
import type { ConfigFile } from "../../config/schema.js";
import { OpsPilotError } from "../../contracts/errors.js";
import { examine, type DoctorReport } from "./checks.js";
import { formatToolTable } from "../tools/tools.js";

/** What `npm run doctor` runs with. */
export interface DoctorCliOptions {
  argv: string[];
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

const USAGE = `Usage: npm run doctor [-- --send-test]

Checks everything on-call depends on, as npm start would use it: the environment (.env
included) and OPSPILOT_CONFIG; then at once, each within a time limit, the model (one small
real request that offers a tool), the database in use, each toolset (Prometheus,
Alertmanager), every MCP server, the runbooks folder, the notice webhooks (well-formed) and
Slack's settings. Lists each tool with its effective policy and warns about tools keys that
match no tool. Exits 0 when all is well, 1 with one line per problem, 2 when the settings
cannot be read at all.

  --send-test   also POST a test notice to each notice webhook and report its answer
`;

/** `npm run doctor`: checks the configuration end to end and prints what it found. Resolves to the exit code. */
export async function runDoctor(options: DoctorCliOptions): Promise<number> {
  const { argv, stdout, stderr } = options;
  if (argv.includes("--help") || argv.includes("-h")) {
    stdout.write(USAGE);
    return 0;
  }
  const unexpected = argv.find((argument) => argument !== "--send-test");
  if (unexpected !== undefined) {
    stderr.write(`opspilot doctor: unexpected argument ${unexpected}\n\n${USAGE}`);
    return 2;
  }
  let env: Env;
  let config: ConfigFile;
  try {
    env = loadEnv();
    config = loadConfig(env.OPSPILOT_CONFIG, environmentVariables());
  } catch (error) {
    if (!(error instanceof OpsPilotError)) throw error;
    stderr.write(`opspilot doctor: ${error.message}\n`);
    return 2;
  }
  const report = await examine(env, config, { sendTest: argv.includes("--send-test") });
  stdout.write(formatReport(report).join("\n") + "\n");
  return report.problems.length > 0 ? 1 : 0;
}

/** The checks, the tool table, the keys doctor could not check, then the problems or one "all good" line. */
function formatReport(report: DoctorReport): string[] {
  const width = Math.max(...report.checks.map((check) => check.subject.length));
  const lines = report.checks.map((check) => `${check.subject.padEnd(width)}  ${check.detail}`);
  lines.push("", ...formatToolTable(report.tools));
  if (report.unverified.length > 0) lines.push("", ...report.unverified.map((finding) => describeToolKey(finding)));
  lines.push("");
  if (report.problems.length === 0) {
    // With no problem, every configured server is up.
    const servers =
      report.serversUp === 0 ? "" : `, ${report.serversUp} MCP server${report.serversUp === 1 ? "" : "s"} up`;
    lines.push(`All good: ${report.tools.length} tools${servers}, database ready.`);
    return lines;
  }
  const count = report.problems.length;
  lines.push(`${count} problem${count === 1 ? "" : "s"}:`, ...report.problems.map((problem) => `  - ${problem}`));
  return lines;
}
