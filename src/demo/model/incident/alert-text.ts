/** An alert as the demo model reads it from an incident thread's message (what the alert intake writes). */
export interface AlertFacts {
  /** Where the alert came from. */
  source: "alertmanager" | "pagerduty";
  /** Alertmanager's `alertname`, or the PagerDuty incident's title. */
  alertname: string;
  /** The group's common labels, in the order the message lists them (Alertmanager only). */
  labels: ReadonlyArray<readonly [string, string]>;
  /** When the alert started firing, as the message says it. */
  since?: string;
  /** The alerting rule's PromQL expression, when the message carries it. */
  expression?: string;
  /** The service the alert names (its `service` label, or PagerDuty's `Service:` line). */
  service?: string;
  /** The environment, only when a label names one; never guessed. */
  environment?: "prod" | "staging";
}

const ALERTMANAGER_HEADER = /^Alertmanager alert (.+?) is firing since (\S+?)(?:\s|$)/;
const PAGERDUTY_HEADER =
  /^PagerDuty incident\b(.*?)\b(?:was\s+)?(?:triggered|reopened)\b(?:\s+at\s+(\S+?)[.,]?(?:\s|$))?/i;
const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Labels that name the service, in the order they are trusted. */
const SERVICE_LABELS = ["service", "app", "application", "service_name"];
const ENVIRONMENT_LABELS = ["env", "environment"];

/** The value of the first line starting with `prefix` (e.g. "Labels: "), trimmed. */
function lineValue(lines: readonly string[], prefix: string): string | undefined {
  const line = lines.find((candidate) => candidate.startsWith(prefix));
  const value = line?.slice(prefix.length).trim();
  return value ? value : undefined;
}

/**
 * `name=value` pairs as the alert message joins them (", " between pairs). A value may hold
 * ", " itself: a pair only starts where a label name and "=" follow.
 */
export function labelPairs(text: string): Array<[string, string]> {
  return text
    .split(/,\s(?=[A-Za-z_][A-Za-z0-9_]*=)/)
    .map((pair): [string, string] => {
      const equals = pair.indexOf("=");
      return equals > 0 ? [pair.slice(0, equals).trim(), pair.slice(equals + 1).trim()] : ["", ""];
    })
    .filter(([name, value]) => LABEL_NAME.test(name) && value.length > 0);
}

/** The environment a label names, mapped to the demo's ids; undefined for anything else. */
function environmentOf(labels: ReadonlyArray<readonly [string, string]>): "prod" | "staging" | undefined {
  const value = labels.find(([name]) => ENVIRONMENT_LABELS.includes(name))?.[1].toLowerCase();
  if (value === "prod" || value === "production") return "prod";
  if (value === "staging" || value === "stage") return "staging";
  return undefined;
}

function alertmanagerFacts(lines: readonly string[], header: RegExpExecArray): AlertFacts {
  const labels = labelPairs(lineValue(lines, "Labels: ") ?? "");
  const named = labels.find(([name]) => name === "alertname")?.[1];
  return {
    source: "alertmanager",
    alertname: named ?? header[1]!,
    labels,
    since: header[2],
    expression: lineValue(lines, "Rule expression: "),
    service: SERVICE_LABELS.map((label) => labels.find(([name]) => name === label)?.[1]).find(Boolean),
    environment: environmentOf(labels),
  };
}

/** A PagerDuty incident's title: its `Title:` line, else the quoted text or the words of the first line. */
function pagerDutyTitle(lines: readonly string[], header: RegExpExecArray): string {
  const titled = lineValue(lines, "Title: ");
  if (titled) return titled;
  const quoted = /["“]([^"”]+)["”]/.exec(header[1]!)?.[1];
  if (quoted) return quoted.trim();
  const words = header[1]!
    .replace(/^\s*(?:#?[\w-]*\d[\w-]*:?)?\s*/, "")
    .replace(/[\s:,(-]+$/, "")
    .trim();
  return words || "PagerDuty incident";
}

function pagerDutyFacts(lines: readonly string[], header: RegExpExecArray): AlertFacts {
  return {
    source: "pagerduty",
    alertname: pagerDutyTitle(lines, header),
    labels: [],
    since: header[2],
    service: lineValue(lines, "Service: "),
  };
}

/**
 * The alert's own lines: up to its closing "Investigate:" line, else up to the first blank line,
 * so sections appended after it (runbooks, past incidents) are never read as the alert.
 */
function alertBlock(lines: readonly string[]): readonly string[] {
  const closing = lines.findIndex((line) => line.startsWith("Investigate:"));
  if (closing >= 0) return lines.slice(0, closing + 1);
  const blank = lines.findIndex((line) => line.trim() === "");
  return blank >= 0 ? lines.slice(0, blank) : lines;
}

/**
 * The alert a message announces, when it is an alert intake's first message (or a follow-up):
 * "Alertmanager alert X is firing since T ..." with its `Labels:` and `Rule expression:` lines,
 * or "PagerDuty incident #N "title" was triggered (or reopened) at T." with its `Title:` and `Service:` lines. Lines it does not know
 * (annotations, runbook and past-incident sections) are left alone. Undefined for any other text.
 */
export function readAlert(text: string): AlertFacts | undefined {
  const lines = alertBlock(text.split("\n").map((line) => line.trimEnd()));
  const first = lines[0]?.trim() ?? "";
  const alertmanager = ALERTMANAGER_HEADER.exec(first);
  if (alertmanager) return alertmanagerFacts(lines, alertmanager);
  const pagerDuty = PAGERDUTY_HEADER.exec(first);
  if (pagerDuty) return pagerDutyFacts(lines, pagerDuty);
  return undefined;
}

/** The latest alert announced among the thread's earlier messages (given latest first). */
export function alertInThread(earlier: readonly string[]): AlertFacts | undefined {
  for (const text of earlier) {
    const alert = readAlert(text);
    if (alert) return alert;
  }
  return undefined;
}
