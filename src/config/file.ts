import { readFileSync } from "node:fs";
import type { z } from "zod";
import { ConfigError } from "../contracts/errors.js";
import { ConfigFileSchema, type ConfigFile } from "./schema.js";

/** Environment variables `${VAR}` references are filled from. */
export type ConfigVariables = Readonly<Record<string, string | undefined>>;

/** The configuration without a file: the demo tools, no MCP servers, no policy overrides. */
export const DEFAULT_CONFIG: ConfigFile = Object.freeze(ConfigFileSchema.parse({}));

/**
 * The configuration `OPSPILOT_CONFIG` names, or `DEFAULT_CONFIG` when it is unset. Throws
 * `ConfigError` with one line naming the file, the key path and the problem.
 */
export function loadConfig(path: string | undefined, variables: ConfigVariables): ConfigFile {
  return path === undefined ? DEFAULT_CONFIG : readConfigFile(path, variables);
}

/** Reads, fills in `${VAR}` references and validates one config file. */
export function readConfigFile(path: string, variables: ConfigVariables): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8").replace(/^\uFEFF/, "");
  } catch (error) {
    throw new ConfigError(`${path}: cannot read the file (${readProblem(error)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path}: ${jsonProblem(text, error)}`);
  }
  return parseConfig(value, variables, path);
}

/**
 * Validates a parsed config value: `${VAR}` in every string value is replaced from
 * `variables` first (so a URL or token from the environment is validated too), then the
 * schema is checked. `$${` writes a literal `${`. A variable that is unset or blank is an
 * error naming it, never an empty string that would fail later and far away.
 */
export function parseConfig(value: unknown, variables: ConfigVariables, label = "opspilot.config.json"): ConfigFile {
  const missing: string[] = [];
  const filled = substitute(value, [], variables, missing);
  if (missing.length > 0) throw new ConfigError(`${label}: ${missing.join("; ")}`);
  const parsed = ConfigFileSchema.safeParse(filled, { error: friendlyMessage });
  if (parsed.success) return parsed.data;
  throw new ConfigError(`${label}: ${formatIssues(parsed.error.issues, filled).join("; ")}`);
}

/** A key path as a reader would write it: `tools."k8s__*".risk`, `mcpServers.fs.args[0]`. */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => {
      if (typeof key === "number") return `[${key}]`;
      const text = String(key);
      const part = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(text) ? text : JSON.stringify(text);
      return index === 0 ? part : `.${part}`;
    })
    .join("");
}

const REFERENCE = /\$(\$?)\{([^}]*)\}/g;

function substitute(value: unknown, path: PropertyKey[], variables: ConfigVariables, missing: string[]): unknown {
  if (typeof value === "string") {
    return value.replace(REFERENCE, (whole, escaped: string, name: string) => {
      if (escaped) return whole.slice(1);
      const where = path.length > 0 ? `${formatKeyPath(path)}: ` : "";
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        missing.push(`${where}"\${${name}}" is not a variable reference (write \${NAME}, or $\${ for a literal \${)`);
        return whole;
      }
      const replacement = variables[name];
      if (replacement === undefined || replacement.trim() === "") {
        missing.push(`${where}\${${name}} is not set in the environment`);
        return whole;
      }
      return replacement;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => substitute(item, [...path, index], variables, missing));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, substitute(item, [...path, key], variables, missing)]),
    );
  }
  return value;
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "an object",
  record: "an object",
  array: "an array",
};

/** Zod's default messages, reworded for a person editing a JSON file; the schema's own messages win over these. */
function friendlyMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "is required" : `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
    case "too_small":
      if (issue.origin === "string")
        return issue.minimum === 1 ? "must not be empty" : `must have at least ${issue.minimum} characters`;
      if (issue.origin === "array") return `must list at least ${issue.minimum} value(s)`;
      return `must be at least ${issue.minimum}`;
    case "too_big":
      return issue.origin === "number" ? `must be at most ${issue.maximum}` : undefined;
    case "invalid_value":
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
    case "unrecognized_keys": {
      const shape = (issue.inst as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape;
      return shape ? `unknown key (expected one of: ${Object.keys(shape).join(", ")})` : "unknown key";
    }
    default:
      return undefined;
  }
}

/** One `path: problem` per issue; an unknown key names itself, a union reports the branch the value meant. */
function formatIssues(issues: readonly z.core.$ZodIssue[], input: unknown, prefix: PropertyKey[] = []): string[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    const where = (at: readonly PropertyKey[]) => (at.length > 0 ? formatKeyPath(at) : "the file");
    switch (issue.code) {
      case "unrecognized_keys":
        return issue.keys.map((key) => `${where([...path, key])}: ${issue.message}`);
      case "invalid_key":
        return [`${where(path)}: ${issue.issues.map((inner) => inner.message).join("; ")}`];
      case "invalid_union": {
        const meant = intendedBranch(issue.errors, valueAt(input, path));
        return meant ? formatIssues(meant, input, path) : [`${where(path)}: ${issue.message}`];
      }
      case "invalid_type":
        if (path.length === 0) return ["the file must hold one JSON object"];
        return [`${where(path)}: ${issue.message}`];
      default:
        return [`${where(path)}: ${issue.message}`];
    }
  });
}

/** The one union branch of the value's type whose required keys the value has, when exactly one fits that way. */
function intendedBranch(branches: z.core.$ZodIssue[][], value: unknown): z.core.$ZodIssue[] | undefined {
  const record = value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  if (!record) return undefined;
  const fitting = branches.filter(
    (branch) =>
      !branch.some(
        (issue) =>
          issue.code === "invalid_type" &&
          // A branch of another type altogether (an object where the value is a list), or missing a required key.
          (issue.path.length === 0 || (issue.path.length === 1 && record[String(issue.path[0])] === undefined)),
      ),
  );
  return fitting.length === 1 ? fitting[0] : undefined;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function readProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "it is a directory";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return code ?? "unreadable";
}

/** The JSON parser's complaint with a line and column, without echoing the file's text (it may hold a token). */
function jsonProblem(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /at position (\d+)/.exec(message);
  const reason = message
    .replace(/ in JSON at position \d+.*$/, "")
    .replace(/ at position \d+.*$/, "")
    .replace(/, ".*" is not valid JSON$/s, "");
  if (!position) return `invalid JSON: ${reason}`;
  const before = text.slice(0, Number(position[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `invalid JSON at line ${line}, column ${column}: ${reason}`;
}
