/**
 * `npx tsx scripts/scenario-schema.ts`: writes eval/scenario.schema.json from the zod schema in
 * src/eval/scenario-schema.ts, from the repository root.
 */
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { format } from "prettier";
import { SCENARIO_SCHEMA_FILE, scenarioJsonSchema } from "../src/eval/json-schema.js";

/** The file's exact text, formatted as `prettier --check` expects it. */
export async function renderScenarioSchema(): Promise<string> {
  return format(JSON.stringify(scenarioJsonSchema(), null, 2), { parser: "json", printWidth: 120 });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(SCENARIO_SCHEMA_FILE, await renderScenarioSchema());
  console.log(`wrote ${SCENARIO_SCHEMA_FILE}`);
}
