import { logsOf, serviceOf } from "./data.js";
import { docsLines, logLines } from "./evidence-lines.js";
import { alertLines, silenceLines } from "./incident/incident-answer.js";
import { metricsLines } from "./metrics-answer.js";
import type { Intent } from "./intent.js";
import { phrases, type Phrases } from "./phrases.js";
import { ACTION_TOOL } from "./plan.js";
import { lastObservation, type Turn } from "./turn.js";

/**
 * The demo model's final answer: written only from the observations of the turn
 * (counts, codes, runbook ids, results), saying plainly which tool failed and why,
 * and always labelled as coming from the offline demo model.
 */
export function writeAnswer(turn: Turn, intent: Intent, boundTools: ReadonlySet<string>): string {
  const p = phrases(intent.language);
  const lines = [...failureLines(turn, p), ...bodyLines(turn, intent, p, boundTools)];
  return p.label + (lines.length > 0 ? markdownText(lines) : p.help);
}

/** A list item, or a line nested under one (`- x`, `1. x`, or indented). */
const LIST_LINE = /^(\s+\S|[-*] |\d+\. )/;

/**
 * The lines as Markdown: a blank line wherever a list starts or ends, so the line after a list
 * is its own paragraph, not a continuation of the list's last item (with `breaks`, other lines
 * keep their single line breaks).
 */
function markdownText(lines: readonly string[]): string {
  return lines.reduce((text, line, index) => {
    if (index === 0) return line;
    const separator = LIST_LINE.test(line) === LIST_LINE.test(lines[index - 1]!) ? "\n" : "\n\n";
    return text + separator + line;
  }, "");
}

function bodyLines(turn: Turn, intent: Intent, p: Phrases, boundTools: ReadonlySet<string>): string[] {
  switch (intent.kind) {
    case "greeting":
      return [p.greeting];
    case "thanks":
      return [p.thanks];
    case "help":
      return [p.help];
    case "docs":
      return docsLines(turn, p, [], undefined);
    case "alert":
      return alertLines(turn, intent, p, boundTools);
    case "silence":
      return silenceLines(turn, intent, boundTools);
    case "investigate":
      return investigateLines(turn, intent, p, boundTools);
    case "restart":
    case "rollback":
    case "metrics":
      return actionLines(turn, intent, intent.kind, p, boundTools);
    default: {
      const _exhaustive: never = intent.kind;
      return _exhaustive;
    }
  }
}

/** Errors an action reports itself, in its own words: a person said no, or no one said yes in time. */
const UNANSWERED: ReadonlySet<string> = new Set(["rejected_by_user", "approval_expired"]);

/** Lines for failed observations; a user's rejection or an expired approval is reported by the action itself. */
function failureLines(turn: Turn, p: Phrases): string[] {
  return turn.calls.flatMap((call) =>
    call.observation && !call.observation.ok && !UNANSWERED.has(call.observation.errorCode)
      ? [p.failed(call.tool, call.observation.errorCode, call.observation.message)]
      : [],
  );
}

/** Asks for the service, or says none matched; undefined when the service is known or still unsearched. */
function serviceProblem(turn: Turn, intent: Intent, p: Phrases): string | undefined {
  if (!intent.serviceQuery) return p.askService;
  const resource = lastObservation(turn, "search_resource");
  if (resource?.ok && !serviceOf(resource)) return p.noService(intent.serviceQuery);
  return undefined;
}

function investigateLines(turn: Turn, intent: Intent, p: Phrases, boundTools: ReadonlySet<string>): string[] {
  const lines: string[] = [];
  const problem = serviceProblem(turn, intent, p);
  if (problem) lines.push(problem);
  const hit = serviceOf(lastObservation(turn, "search_resource"));
  const logs = logsOf(lastObservation(turn, "search_logs"));
  if (logs) lines.push(...logLines(logs, hit ? p.service(hit) : (logs.service ?? intent.serviceQuery ?? "?"), p));
  else if (hit && !boundTools.has("search_logs")) lines.push(p.toolUnavailable("search_logs"));
  if (intent.wantsDocs)
    lines.push(...docsLines(turn, p, logs?.byCode.map((entry) => entry.code) ?? [], hit?.id ?? logs?.service));
  return lines;
}

function actionLines(
  turn: Turn,
  intent: Intent,
  kind: keyof typeof ACTION_TOOL,
  p: Phrases,
  boundTools: ReadonlySet<string>,
): string[] {
  const problem = serviceProblem(turn, intent, p);
  if (problem) return [problem];
  const tool = ACTION_TOOL[kind];
  const call = [...turn.calls].reverse().find((entry) => entry.tool === tool && entry.observation);
  const hit = serviceOf(lastObservation(turn, "search_resource"));
  if (!call?.observation) return hit && !boundTools.has(tool) ? [p.toolUnavailable(tool)] : [];
  const observation = call.observation;
  const service = String(call.args.service ?? hit?.id ?? "?");
  if (!observation.ok) {
    if (kind === "metrics") return [];
    if (observation.errorCode === "approval_expired")
      return [p.expired(p.actionNames[kind], service, observation.message)];
    return observation.errorCode === "rejected_by_user"
      ? [p.rejected(p.actionNames[kind], service, observation.message)]
      : [];
  }
  const data = (observation.data ?? {}) as Record<string, unknown>;
  const environment = String(data.environment ?? call.args.environment ?? "?");
  const fields = { service: String(data.service ?? service), environment };
  if (kind === "restart") {
    return [
      p.restarted({
        ...fields,
        restartedAt: optionalText(data.restartedAt),
        restartCount: typeof data.restartCount === "number" ? data.restartCount : undefined,
      }),
    ];
  }
  if (kind === "rollback")
    return [
      p.rolledBack({ ...fields, toVersion: optionalText(data.toVersion), fromVersion: optionalText(data.fromVersion) }),
    ];
  return metricsLines(data, fields, p);
}

function optionalText(value: unknown): string | undefined {
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}
