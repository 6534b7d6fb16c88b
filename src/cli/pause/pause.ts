import type { PauseValue, WaitingCall } from "../../contracts/pause/pause.js";
import { previewLines } from "../../contracts/pause/preview-text.js";
import { compactJson, shellQuote } from "../output/format.js";
import { approvalsLine } from "../../graph/pause/approvals.js";
import type { Style } from "../output/style.js";

/** How a pause is shown: styles, and the short tag of a call ("[3]"). */
export interface PauseView {
  style: Style;
  tagOf(callId: string): string;
}

/** The command users run to answer; the same on every platform npm runs on. */
export const ASK_COMMAND = "npm run ask --";

/**
 * What the pause waits for: the reason, each waiting call with its args, risk and the fields
 * to fill. A risky pause says so in its first line, in red, even when it also asks for fields.
 */
export function describePause(pause: PauseValue, view: PauseView): string[] {
  const { style } = view;
  const title =
    pause.interruptType === "confirm_risky"
      ? style.red(style.bold(`⚠ Waiting for your approval of a high-risk action (${pause.interruptType}):`))
      : style.yellow(style.bold(`⏸ Waiting for you (${pause.interruptType}):`));
  const lines = [`${title} ${pause.reason}`];
  if (pause.error) lines.push(style.red(`  Your previous answer was refused: ${pause.error}`));
  if (pause.expiresAt)
    lines.push(style.dim(`  Answer by ${pause.expiresAt}: then the waiting calls are answered approval_expired.`));
  for (const call of pause.calls) lines.push(...describeCall(call, view));
  return lines;
}

function describeCall(call: WaitingCall, view: PauseView): string[] {
  const { style } = view;
  const risk = call.risk === "high" ? style.red("high risk") : "low risk";
  const args = argsText(call.args, call.egress, style, 400);
  const lines = [
    `  ${view.tagOf(call.callId)} ${style.cyan(call.tool)} ${args.text}  ${style.dim("·")} ${risk} ${style.dim(`· call ${call.callId}`)}`,
  ];
  if (call.egress) lines.push(...egressLines(call.egress, args.unplaced, style));
  lines.push(...previewLines(call.preview).map((line) => `      ${style.bold(line)}`));
  if (call.approvals) {
    const given = call.approvals.given.map((approval) => `${approval.userId} (${approval.role}, ${approval.at})`);
    lines.push(`      ${style.bold(approvalsLine(call.approvals))}`);
    if (given.length > 0) lines.push(style.dim(`      approved by ${given.join(", ")}`));
  }
  for (const field of call.missing ?? []) {
    lines.push(`      needs ${style.bold(field.name)}: ${field.description}`);
    if (field.enum) lines.push(`      allowed values: ${field.enum.map((value) => style.bold(value)).join(" | ")}`);
  }
  return lines;
}

/** Where an egress call's args came from, as a waiting call carries it. */
type EgressNote = NonNullable<WaitingCall["egress"]>;
type CopiedPart = EgressNote["copied"][number];

/** Longest copied part quoted on a line of its own. */
const QUOTE_MAX = 200;

/**
 * Compact JSON of a call's args, cut to `max` characters; for an egress call, each part it
 * copied from an untrusted tool result is `style.mark`ed inside its field's value. Parts not
 * found there (or all of them, when the args are cut) come back as `unplaced`.
 */
export function argsText(
  args: Record<string, unknown>,
  egress: EgressNote | undefined,
  style: Style,
  max: number,
): { text: string; unplaced: CopiedPart[] } {
  const copied = egress?.copied ?? [];
  const plain = JSON.stringify(args) ?? "{}";
  if (copied.length === 0 || plain.length > max) return { text: compactJson(args, max), unplaced: copied };
  const byField = new Map<string, CopiedPart[]>();
  for (const part of copied) byField.set(part.field, [...(byField.get(part.field) ?? []), part]);
  const placed = new Set<CopiedPart>();
  const text = markedJson(args, "", byField, placed, style);
  return { text, unplaced: copied.filter((part) => !placed.has(part)) };
}

/** What an egress call adds under its line: why it waits, which source each marked part came from, and the parts not marked. */
function egressLines(egress: EgressNote, unplaced: readonly CopiedPart[], style: Style): string[] {
  const lines = [`      ${style.yellow("sends data out")}; the thread read content from: ${egress.sources.join(", ")}`];
  const marked = egress.copied.filter((part) => !unplaced.includes(part));
  const bySource = new Map<string, string[]>();
  for (const part of marked) {
    const fields = bySource.get(part.from) ?? [];
    if (!fields.includes(part.field)) bySource.set(part.from, [...fields, part.field]);
  }
  for (const [from, fields] of bySource)
    lines.push(`      ${style.mark("…")} copied from ${style.bold(from)} (${fields.join(", ")})`);
  for (const part of unplaced) {
    const quote = part.text.length > QUOTE_MAX ? `${part.text.slice(0, QUOTE_MAX - 1)}…` : part.text;
    lines.push(`      ${part.field} copied from ${style.bold(part.from)}: ${style.mark(quote)}`);
  }
  return lines;
}

/** `JSON.stringify(value)` with the copied parts of each string field marked (field paths as `message`, `blocks[0].text`). */
function markedJson(
  value: unknown,
  path: string,
  byField: ReadonlyMap<string, CopiedPart[]>,
  placed: Set<CopiedPart>,
  style: Style,
): string {
  if (typeof value === "string") return markedString(value, byField.get(path) ?? [], placed, style);
  if (Array.isArray(value))
    return `[${value
      .map((item, index) =>
        item === undefined || typeof item === "function"
          ? "null"
          : markedJson(item, `${path}[${index}]`, byField, placed, style),
      )
      .join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined && typeof item !== "function");
    return `{${entries
      .map(
        ([key, item]) =>
          `${JSON.stringify(key)}:${markedJson(item, path ? `${path}.${key}` : key, byField, placed, style)}`,
      )
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A JSON string with each part marked at its first place no other part took. */
function markedString(value: string, parts: readonly CopiedPart[], placed: Set<CopiedPart>, style: Style): string {
  const ranges: Array<{ start: number; end: number }> = [];
  for (const part of parts) {
    if (part.text.length === 0) continue;
    for (let at = value.indexOf(part.text); at >= 0; at = value.indexOf(part.text, at + 1)) {
      const end = at + part.text.length;
      if (ranges.some((range) => at < range.end && end > range.start)) continue;
      ranges.push({ start: at, end });
      placed.add(part);
      break;
    }
  }
  ranges.sort((a, b) => a.start - b.start);
  const escaped = (text: string) => JSON.stringify(text).slice(1, -1);
  let text = '"';
  let cursor = 0;
  for (const range of ranges) {
    text += escaped(value.slice(cursor, range.start)) + style.mark(escaped(value.slice(range.start, range.end)));
    cursor = range.end;
  }
  return `${text}${escaped(value.slice(cursor))}"`;
}

/** `npm run ask -- --thread <id>` with the flags it must repeat (`--user`, `--role`, ...), quoted for a shell. */
export function threadCommand(threadId: string, flags: readonly string[] = [], command = ASK_COMMAND): string {
  return [command, "--thread", threadId, ...flags]
    .map((word, index) => (index === 0 ? word : shellQuote(word)))
    .join(" ");
}

/**
 * The exact commands that answer the pause from another shell (what non-TTY runs print before
 * exiting); each repeats `flags`, the run's own (`--user`, `--role`, limits, `--no-model`), so
 * it answers as the same user, with the same role and limits.
 */
export function resumeInstructions(
  threadId: string,
  pause: PauseValue,
  style: Style,
  flags: readonly string[] = [],
): string[] {
  const base = threadCommand(threadId, flags);
  const command = (flags: string) => "  " + style.bold(`${base} ${flags}`);
  const fields = uniqueFields(pause);
  const highRisk = pause.calls.some((call) => call.risk === "high");
  const approve = highRisk ? " --approve" : "";
  // With one risky call, each approving command names the exact action it approves.
  const [risky] = pause.calls.length === 1 && highRisk ? pause.calls : [];
  const approves = (filled: Record<string, unknown>) =>
    risky ? style.dim(`   approves ${risky.tool} ${compactJson({ ...risky.args, ...filled }, 200)}`) : "";
  const lines = [style.bold("To answer, run one of:")];
  const [onlyField] = fields;
  if (fields.length === 1 && onlyField!.enum && onlyField!.enum.length <= 5) {
    for (const value of onlyField!.enum)
      lines.push(
        command(`--param ${shellQuote(`${onlyField!.name}=${value}`)}${approve}`) +
          approves({ [onlyField!.name]: value }),
      );
  } else if (fields.length > 0) {
    lines.push(
      command(
        fields.map((field) => `--param ${shellQuote(`${field.name}=${field.enum?.[0] ?? "VALUE"}`)}`).join(" ") +
          approve,
      ),
    );
    for (const field of fields)
      if (field.enum) lines.push(style.dim(`      ${field.name}: one of ${field.enum.join(", ")}`));
  } else {
    lines.push(command("--approve") + (risky ? approves({}) : style.dim("   run exactly as shown")));
  }
  if (pause.calls.length === 1 && (highRisk || pause.interruptType === "confirm_risky")) {
    lines.push(
      command(`--edit ${shellQuote(JSON.stringify(editExample(pause.calls[0]!)))}`) +
        style.dim("   run with these args instead"),
    );
  }
  lines.push(command(`--reject "reason"`) + style.dim("   refuse (the reason is optional)"));
  if (pause.calls.length > 1) {
    const decisions = pause.calls.map((call) => ({ callId: call.callId, action: "approve", argsHash: call.argsHash }));
    lines.push(command(`--resume ${shellQuote(JSON.stringify({ decisions }))}`) + style.dim("   decide call by call"));
  }
  lines.push(style.dim(`  or, in a terminal: ${base}   (asks you in place)`));
  return lines;
}

/** The call's args with each missing field filled by its first allowed value: a starting point to edit. */
function editExample(call: WaitingCall): Record<string, unknown> {
  const filled = Object.fromEntries((call.missing ?? []).map((field) => [field.name, field.enum?.[0] ?? "VALUE"]));
  return { ...call.args, ...filled };
}

function uniqueFields(pause: PauseValue) {
  const byName = new Map<string, NonNullable<WaitingCall["missing"]>[number]>();
  for (const call of pause.calls)
    for (const field of call.missing ?? []) if (!byName.has(field.name)) byName.set(field.name, field);
  return [...byName.values()];
}
