/**
 * `npm run prometheus-rule`: writes deploy/kubernetes/monitoring/prometheus-rule.yaml, the Prometheus
 * Operator's PrometheusRule holding deploy/prometheus/opspilot-rules.yml's groups unchanged. `--check`
 * only compares and exits 1 when the file is out of date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { format } from "prettier";
import { parse, stringify } from "yaml";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The alert rules Prometheus loads directly (`rule_files`). */
export const RULES_PATH = join(ROOT, "deploy/prometheus/opspilot-rules.yml");

/** The same rules as a PrometheusRule, in the monitoring kustomization. */
export const PROMETHEUS_RULE_PATH = join(ROOT, "deploy/kubernetes/monitoring/prometheus-rule.yaml");

const HEADER = [
  "# Made by `npm run prometheus-rule` from deploy/prometheus/opspilot-rules.yml (its comments say why each",
  "# rule is what it is); edit that file, not this one. npm test checks the two hold the same groups.",
].join("\n");

/** The PrometheusRule file's exact text, formatted as `prettier --check` expects it. */
export async function renderPrometheusRule(rulesText: string = readFileSync(RULES_PATH, "utf8")): Promise<string> {
  const { groups } = parse(rulesText) as { groups: unknown };
  const rule = {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "PrometheusRule",
    metadata: { name: "opspilot", labels: { "app.kubernetes.io/name": "opspilot" } },
    spec: { groups },
  };
  return format(`${HEADER}\n${stringify(rule, { lineWidth: 0 })}`, { parser: "yaml" });
}

async function main(): Promise<void> {
  const text = await renderPrometheusRule();
  if (process.argv.includes("--check")) {
    if (readFileSync(PROMETHEUS_RULE_PATH, "utf8") !== text) {
      console.error("deploy/kubernetes/monitoring/prometheus-rule.yaml is out of date: run npm run prometheus-rule");
      process.exitCode = 1;
    }
    return;
  }
  writeFileSync(PROMETHEUS_RULE_PATH, text);
  console.log("wrote deploy/kubernetes/monitoring/prometheus-rule.yaml");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
