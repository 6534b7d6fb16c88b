import type { SeenObservation } from "./turn.js";

/** A resource as `search_resource` returns it. */
export interface ResourceHit {
  id: string;
  name?: string;
  nameZh?: string;
  kind?: string;
  owner?: string;
  tier?: string;
  status?: string;
}

/** One error code's count as `search_logs` returns it. */
export interface CodeCount {
  code: string;
  count: number;
  lastSeen?: string;
  sample?: string;
}

/** The part of a `search_logs` result the demo model reads. */
export interface LogSummary {
  service?: string;
  environment?: string;
  total?: number;
  byCode: CodeCount[];
  /** Whether the observation was cut and the counts were read from the preview. */
  partial: boolean;
}

/** A runbook as `search_docs` returns it. */
export interface RunbookHit {
  id: string;
  title?: string;
  titleZh?: string;
  services: string[];
  errorCodes: string[];
  advice: string[];
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const texts = (value: unknown): string[] => list(value).filter((item): item is string => typeof item === "string");

/** Resources found, best first; services before other kinds. */
function resourcesOf(observation: SeenObservation | undefined): ResourceHit[] {
  if (!observation?.ok) return [];
  const hits = list(record(observation.data).results)
    .map(record)
    .filter((hit) => typeof hit.id === "string")
    .map((hit) => ({ ...hit, id: hit.id as string }) as ResourceHit);
  return [
    ...hits.filter((hit) => hit.kind === undefined || hit.kind === "service"),
    ...hits.filter((hit) => hit.kind !== undefined && hit.kind !== "service"),
  ];
}

/** The service the request is about: the best hit of the resource search. */
export function serviceOf(observation: SeenObservation | undefined): ResourceHit | undefined {
  return resourcesOf(observation)[0];
}

/** Error counts of a log search; a cut observation is read from its preview text. */
export function logsOf(observation: SeenObservation | undefined): LogSummary | undefined {
  if (!observation?.ok) return undefined;
  if (typeof observation.data === "string") {
    const byCode = [...observation.data.matchAll(/"code":"([^"]+)","count":(\d+)/g)].map((match) => ({
      code: match[1]!,
      count: Number(match[2]),
    }));
    return { byCode, partial: true };
  }
  const data = record(observation.data);
  const byCode = list(data.byCode)
    .map(record)
    .filter((entry) => typeof entry.code === "string" && typeof entry.count === "number")
    .map((entry) => ({
      code: entry.code as string,
      count: entry.count as number,
      lastSeen: text(entry.lastSeen),
      sample: text(entry.sample),
    }));
  const total = typeof data.total === "number" ? data.total : undefined;
  return {
    service: text(data.service),
    environment: text(data.environment),
    total,
    byCode,
    partial: observation.truncated,
  };
}

/** Runbooks found, in the order the search ranked them. */
export function runbooksOf(observation: SeenObservation | undefined): RunbookHit[] {
  if (!observation?.ok) return [];
  return list(record(observation.data).results)
    .map(record)
    .filter((hit) => typeof hit.id === "string")
    .map((hit) => ({
      id: hit.id as string,
      title: text(hit.title),
      titleZh: text(hit.titleZh),
      services: texts(hit.services),
      errorCodes: texts(hit.errorCodes),
      advice: hit.advice === undefined ? snippetSteps(hit.snippet) : texts(hit.advice),
    }));
}

/** Most steps read from a runbook section's text. */
const SNIPPET_STEPS = 3;

/** A section of the team's own runbooks (its Markdown `snippet`) as steps: its lines of text, list markers and headings left out. */
function snippetSteps(snippet: unknown): string[] {
  if (typeof snippet !== "string") return [];
  return snippet
    .split("\n")
    .map((line) => line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "").trim())
    .filter((line) => line.length > 0 && !line.startsWith("#") && !line.startsWith("---"))
    .slice(0, SNIPPET_STEPS);
}

/**
 * The runbooks to cite: those covering the most codes seen in the logs; when none
 * covers a code, those written for the service; otherwise the search's top hits.
 */
export function relevantRunbooks(runbooks: RunbookHit[], codes: string[], serviceId?: string): RunbookHit[] {
  const covered = (runbook: RunbookHit) => runbook.errorCodes.filter((code) => codes.includes(code)).length;
  const byCodes = runbooks.filter((runbook) => covered(runbook) > 0).sort((a, b) => covered(b) - covered(a));
  const byService = serviceId ? runbooks.filter((runbook) => runbook.services.includes(serviceId)) : [];
  return (byCodes.length > 0 ? byCodes : byService.length > 0 ? byService : runbooks).slice(0, 3);
}

/** The fields of a result worth printing (scalars only), for tools whose shape the demo does not know. */
export function scalarFields(data: unknown, skip: readonly string[]): Array<[string, string | number | boolean]> {
  return Object.entries(record(data)).filter(
    (entry): entry is [string, string | number | boolean] =>
      !skip.includes(entry[0]) && ["string", "number", "boolean"].includes(typeof entry[1]),
  );
}
