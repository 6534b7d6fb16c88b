/**
 * `npm run config-schema`: writes opspilot.config.schema.json from the zod schema in
 * src/config/schema.ts. `--check` only compares and exits 1 when the file is out of date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { format } from "prettier";
import { CONFIG_SCHEMA_FILE, configJsonSchema } from "../src/config/json-schema.js";

/** Where the schema file lives. */
export const CONFIG_SCHEMA_PATH = join(fileURLToPath(new URL("..", import.meta.url)), CONFIG_SCHEMA_FILE);

/** The file's exact text, formatted as `prettier --check` expects it. */
export async function renderConfigSchema(): Promise<string> {
  return format(JSON.stringify(configJsonSchema(), null, 2), { parser: "json", printWidth: 120 });
}

async function main(): Promise<void> {
  const text = await renderConfigSchema();
  if (process.argv.includes("--check")) {
    const current = readFileSync(CONFIG_SCHEMA_PATH, "utf8");
    if (current !== text) {
      console.error(`${CONFIG_SCHEMA_FILE} is out of date: run npm run config-schema`);
      process.exitCode = 1;
    }
    return;
  }
  writeFileSync(CONFIG_SCHEMA_PATH, text);
  console.log(`wrote ${CONFIG_SCHEMA_FILE}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
