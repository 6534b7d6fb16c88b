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
