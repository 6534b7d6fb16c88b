import { z } from "zod";
import { ConfigFileSchema } from "./schema.js";

/** File name of the published JSON Schema, at the repository root. */
export const CONFIG_SCHEMA_FILE = "opspilot.config.schema.json";

/**
 * The JSON Schema of `opspilot.config.json`, generated from the zod schema so the two
 * cannot drift. Draft-07, the version editors complete best; the input side, so keys with
 * defaults stay optional.
 */
export function configJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(ConfigFileSchema, { io: "input", target: "draft-7" }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return { $schema, title: "opspilot.config.json", ...rest };
}
