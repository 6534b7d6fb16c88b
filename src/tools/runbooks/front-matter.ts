import { parseDocument, YAMLError } from "yaml";
import { z } from "zod";
import { formatZodIssues } from "../../contracts/formats/zod-issues.js";

/** The front matter keys a runbook may set; other keys are the team's own and are ignored. */
export interface FrontMatter {
  /** Title shown and searched instead of the first heading. */
  title?: string;
  /** Services the runbook covers. */
  services: string[];
  /** Free keywords in any language. */
  tags: string[];
  /** Alert names (Prometheus `alertname`, PagerDuty titles) the runbook answers: an incident for one of them starts with it. */
  alerts: string[];
}

/** A runbook's text split at its front matter. */
export interface SplitMarkdown {
  /** The keys read; empty lists when there is no (valid) front matter. */
  frontMatter: FrontMatter;
  /** The Markdown after the front matter. */
  body: string;
  /** 1-based line of the file the body starts on. */
  bodyLine: number;
  /** Why the front matter was left out, when it was; the body is still indexed. */
  problem?: string;
}

const TEXT_LIST_ERROR = "must be a text or a list of texts";

/** `tags: a, b`, `tags: [a, b]` and a YAML list all mean the same; numbers (error codes like 503) stay words. */
const TextList = z
  .union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))], { error: TEXT_LIST_ERROR })
  .nullish()
  .transform((value) =>
    (Array.isArray(value) ? value.map(String) : value === null || value === undefined ? [] : String(value).split(","))
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

const FrontMatterSchema = z.object({
  title: z
    .union([z.string(), z.number()], { error: "must be a text" })
    .nullish()
    .transform((value) => (value === null || value === undefined ? undefined : String(value).trim() || undefined)),
  services: TextList,
  tags: TextList,
  alerts: TextList,
});

/** No keys: the shape of a runbook without (valid) front matter. */
function none(): FrontMatter {
  return { services: [], tags: [], alerts: [] };
}

/** The first line of a YAML error without its own position, which counts from the front matter, not the file. */
function yamlReason(error: YAMLError, firstLine: number): string {
  const reason = error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
  const line = error.linePos?.[0].line;
  return line === undefined ? reason : `line ${firstLine + line - 1}: ${reason}`;
}

/** The YAML between the fences as a validated `FrontMatter`, or why not. */
function readFrontMatter(yamlText: string, firstLine: number): FrontMatter | string {
  let value: unknown;
  try {
    const document = parseDocument(yamlText);
    const error = document.errors[0];
    if (error) return `is not valid YAML at ${yamlReason(error, firstLine)}`;
    value = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return `is not valid YAML: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
  }
  if (value === null || value === undefined) return none();
  if (typeof value !== "object" || Array.isArray(value)) return "must be key: value lines";
  const parsed = FrontMatterSchema.safeParse(value);
  if (!parsed.success) return formatZodIssues(parsed.error, { separator: " " });
  return {
    ...(parsed.data.title ? { title: parsed.data.title } : {}),
    services: parsed.data.services,
    tags: parsed.data.tags,
    alerts: parsed.data.alerts,
  };
}

/**
 * Splits off the front matter: YAML between a first line `---` and the next `---` (or `...`)
 * line. Without a closing fence the file has none, as in the other tools that read it. Text
 * is expected with `\n` line ends.
 */
export function splitFrontMatter(text: string): SplitMarkdown {
  const lines = text.split("\n");
  if (lines[0].trimEnd() !== "---") return { frontMatter: none(), body: text, bodyLine: 1 };
  const close = lines.findIndex((line, index) => index > 0 && /^(---|\.\.\.)$/.test(line.trimEnd()));
  if (close === -1) return { frontMatter: none(), body: text, bodyLine: 1 };
  const body = lines.slice(close + 1).join("\n");
  const bodyLine = close + 2;
  const read = readFrontMatter(lines.slice(1, close).join("\n"), 2);
  if (typeof read === "string") {
    return { frontMatter: none(), body, bodyLine, problem: `front matter ${read}; the file is indexed without it` };
  }
  return { frontMatter: read, body, bodyLine };
}
