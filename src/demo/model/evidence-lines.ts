import { relevantRunbooks, runbooksOf, type LogSummary } from "./data.js";
import type { Phrases } from "./phrases.js";
import { lastObservation, type Turn } from "./turn.js";

/** What the error logs show: the total and each code's count, or that there were none. */
export function logLines(logs: LogSummary, service: string, p: Phrases): string[] {
  const total = logs.total ?? logs.byCode.reduce((sum, entry) => sum + entry.count, 0);
  if (total === 0 && logs.byCode.length === 0) return [p.noErrors(service, logs.environment)];
  const lines = [p.logsHeader(service, logs.environment, total), ...logs.byCode.map((entry) => p.codeLine(entry))];
  if (logs.partial) lines.push(p.partialLogs);
  return lines;
}

/** The runbooks' advice for the codes seen (or the service), with the ids cited and the codes no runbook covers. */
export function docsLines(turn: Turn, p: Phrases, codes: string[], serviceId: string | undefined): string[] {
  const observation = lastObservation(turn, "search_docs");
  if (!observation?.ok) return [];
  const runbooks = relevantRunbooks(runbooksOf(observation), codes, serviceId);
  if (runbooks.length === 0) return [p.noRunbooks];
  const lines = [
    p.adviceHeader,
    ...runbooks.flatMap((runbook) =>
      p.runbookLines(
        runbook,
        runbook.errorCodes.filter((code) => codes.includes(code)),
      ),
    ),
  ];
  const uncovered = codes.filter((code) => !runbooks.some((runbook) => runbook.errorCodes.includes(code)));
  if (codes.length > 0 && uncovered.length > 0) lines.push(p.uncovered(uncovered));
  lines.push(p.cited(runbooks.map((runbook) => runbook.id)));
  return lines;
}
