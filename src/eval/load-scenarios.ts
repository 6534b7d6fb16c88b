import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { formatKeyPath } from "../config/file.js";
import { EvalUsageError } from "./eval-error.js";
import { ScenarioSchema, type Scenario } from "./scenario-schema.js";

/** A scenario with the file it came from. */
export interface LoadedScenario {
  /** The validated scenario. */
  scenario: Scenario;
  /** Path of its file, as given or found. */
  file: string;
}

const EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

/**
 * Reads the scenarios of a file or a folder (its `.yaml`, `.yml` and `.json` files, sub-folders
 * included, in name order). Each file holds one scenario, a list of them or `{ scenarios: [...] }`.
 * Any problem throws `EvalUsageError` naming the file, the scenario and the field.
 */
export function loadScenarios(path: string): LoadedScenario[] {
  const files = scenarioFiles(path);
  if (files.length === 0) throw new EvalUsageError(`${path}: no scenario files (.yaml, .yml or .json) found`);
  const loaded = files.flatMap((file) => loadFile(file));
  const seen = new Map<string, string>();
  for (const { scenario, file } of loaded) {
    const earlier = seen.get(scenario.id);
    if (earlier !== undefined)
      throw new EvalUsageError(`${file}: scenario "${scenario.id}": id: already used in ${earlier}`);
    seen.set(scenario.id, file);
  }
  return loaded;
}

/** The scenario files under a path. */
function scenarioFiles(path: string): string[] {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    throw new EvalUsageError(`${path}: no such file or folder`);
  }
  if (stats.isFile()) return [path];
  return listFolder(path)
    .filter((file) => EXTENSIONS.has(extname(file).toLowerCase()))
    .sort((a, b) => relative(path, a).localeCompare(relative(path, b)));
}

function listFolder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = join(folder, entry.name);
    if (entry.isDirectory()) return listFolder(full);
    return entry.isFile() ? [full] : [];
  });
}

/** Parses one file and validates each scenario in it. */
export function loadFile(file: string): LoadedScenario[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new EvalUsageError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  return parseScenarios(text, file);
}

/** Validates the scenarios of one file's text; `file` names it in errors (and picks JSON or YAML by extension). */
export function parseScenarios(text: string, file: string): LoadedScenario[] {
  const value = parseText(text, file);
  const items = scenarioItems(value, file);
  return items.map((item, index) => {
    const parsed = ScenarioSchema.safeParse(item);
    if (parsed.success) return { scenario: parsed.data, file };
    throw new EvalUsageError(`${file}: ${scenarioLabel(item, index, items.length)}: ${issuesLine(parsed.error)}`);
  });
}

function parseText(text: string, file: string): unknown {
  try {
    return extname(file).toLowerCase() === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new EvalUsageError(
      `${file}: not valid ${extname(file).toLowerCase() === ".json" ? "JSON" : "YAML"}: ${reason}`,
    );
  }
}

function scenarioItems(value: unknown, file: string): unknown[] {
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    if ("scenarios" in record) {
      if (!Array.isArray(record.scenarios)) throw new EvalUsageError(`${file}: scenarios: must be a list`);
      return record.scenarios;
    }
    return [value];
  }
  throw new EvalUsageError(`${file}: must hold a scenario, a list of scenarios or { scenarios: [...] }`);
}

/** `scenario "id"` when the item names one, else its position. */
function scenarioLabel(item: unknown, index: number, count: number): string {
  const id = item !== null && typeof item === "object" ? (item as { id?: unknown }).id : undefined;
  if (typeof id === "string" && id) return `scenario "${id}"`;
  return count > 1 ? `scenario #${index + 1}` : "scenario";
}

function issuesLine(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = formatKeyPath(issue.path as PropertyKey[]);
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}
