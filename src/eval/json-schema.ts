import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { ScenarioSchema } from "./scenario-schema.js";

/** Where the published JSON Schema of scenario files lives, relative to the repository root. */
export const SCENARIO_SCHEMA_FILE = "eval/scenario.schema.json";

/**
 * The JSON Schema of a scenario file (one scenario, a list, or `{ scenarios: [...] }`),
 * generated from the zod schema so the two cannot drift; the input side, so fields with
 * defaults stay optional. Editors use it through a `# yaml-language-server: $schema=` line.
 */
export function scenarioJsonSchema(): Record<string, unknown> {
  const scenario = z.toJSONSchema(ScenarioSchema, { io: "input", target: "draft-7" }) as Record<string, unknown>;
  const { $schema, ...definition } = scenario;
  return {
    $schema,
    title: "opspilot eval scenarios",
    definitions: { scenario: definition },
    anyOf: [
      { $ref: "#/definitions/scenario" },
      { type: "array", items: { $ref: "#/definitions/scenario" } },
      {
        type: "object",
        properties: { scenarios: { type: "array", items: { $ref: "#/definitions/scenario" } } },
        required: ["scenarios"],
        additionalProperties: false,
      },
    ],
  };
}

/** The file's exact text, formatted as `prettier --check` expects it (prettier is a development tool). */
export async function renderScenarioSchema(): Promise<string> {
  const { format } = await import("prettier");
  return format(JSON.stringify(scenarioJsonSchema(), null, 2), { parser: "json", printWidth: 120 });
}

// `npx tsx src/eval/json-schema.ts` rewrites the file, from the repository root.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(SCENARIO_SCHEMA_FILE, await renderScenarioSchema());
  console.log(`wrote ${SCENARIO_SCHEMA_FILE}`);
}
