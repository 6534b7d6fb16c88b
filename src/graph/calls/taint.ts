import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { carriesToolContent, type ObservationMeta } from "../../contracts/observation.js";
import { DELIVERED_MESSAGE_SOURCE, isDeliveredMessageId } from "../../contracts/delivered-message.js";
import type { EgressNote } from "../../contracts/pause/pause.js";
import type { Language } from "../../contracts/language.js";
import { loopWords } from "../../contracts/words/loop-words.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { textOf } from "../../models/message-text.js";

/**
 * What makes a thread tainted: the untrusted tools whose content it took in, first read
 * first, and the messages delivered from an incident's source (`incident_message`). Derived from the thread's messages (so it survives pauses, resumes and crashes with
 * them) and kept for as long as the thread is: what the model read stays in its context.
 */
export interface Taint {
  /** Names of the untrusted tools the thread read, in the order it first read them. */
  sources: string[];
}

/** Shortest run of characters counted as copied: shorter ones match by chance (ids, words). */
const MIN_COPIED = 12;
/** Occurrences of a run's first characters followed per result, so one common phrase cannot make the scan slow. */
const MAX_OCCURRENCES = 32;

/** Whether a message is a tool result that carries content from its tool (not the loop's own refusal). */
function isReadResult(message: BaseMessage): message is ToolMessage {
  return (
    ToolMessage.isInstance(message) &&
    carriesToolContent(((message.artifact ?? {}) as Partial<ObservationMeta>).errorCode)
  );
}

/** Tool results of the thread that carry content from their tool, with the tool's name. */
function readResults(messages: readonly BaseMessage[]): ToolMessage[] {
  return messages.filter(isReadResult);
}

/** Whether a message is a person's words: a human message opspilot did not deliver from an incident's source. */
function personal(message: BaseMessage): boolean {
  return HumanMessage.isInstance(message) && !isDeliveredMessageId(message.id);
}

/** Messages delivered from an incident's source (an alert, a scheduled check's finding). */
function delivered(messages: readonly BaseMessage[]): HumanMessage[] {
  return messages.filter(
    (message): message is HumanMessage => HumanMessage.isInstance(message) && isDeliveredMessageId(message.id),
  );
}

/** The untrusted source a message brings into the thread, or undefined for a person's words, a trusted result or a call. */
function untrustedSource(message: BaseMessage, registry: ToolRegistry): string | undefined {
  if (HumanMessage.isInstance(message)) return personal(message) ? undefined : DELIVERED_MESSAGE_SOURCE;
  if (!isReadResult(message)) return undefined;
  const tool = message.name ?? "";
  return registry.get(tool)?.trusted === true ? undefined : tool;
}

/**
 * The thread's taint: every tool that ran and is not `trusted` taints it, and so does a message
 * delivered from an incident's source; null while it holds only people's words and trusted results.
 */
export function taintOf(messages: readonly BaseMessage[], registry: ToolRegistry): Taint | null {
  const sources: string[] = [];
  for (const message of messages) {
    const source = untrustedSource(message, registry);
    if (source !== undefined && !sources.includes(source)) sources.push(source);
  }
  return sources.length > 0 ? { sources } : null;
}

/** What an untrusted result says, as text a model would copy from: its string values, one per line. */
function resultText(message: ToolMessage): string {
  const raw = textOf(message.content);
  try {
    const strings: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value === "string") strings.push(value);
      else if (typeof value === "number" || typeof value === "boolean") strings.push(String(value));
      else if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === "object") Object.values(value).forEach(walk);
    };
    walk(JSON.parse(raw));
    return strings.join("\n");
  } catch {
    return raw;
  }
}

/**
 * The notes the egress calls of one step carry in a tainted thread: the sources, and each run
 * of at least `MIN_COPIED` characters of a call's string args that also stands in an untrusted
 * result (a greedy longest match from each position), unless the user's own messages hold it.
 * The thread's results and the user's words are read once, at the step's first egress call.
 */
export function egressNotes(
  taint: Taint,
  messages: readonly BaseMessage[],
  registry: ToolRegistry,
): (args: Record<string, unknown>) => EgressNote {
  let read: { results: Array<{ from: string; text: string }>; userText: string } | undefined;
  return (args) => {
    read ??= {
      results: [
        ...readResults(messages)
          .filter((message) => registry.get(message.name ?? "")?.trusted !== true)
          .map((message) => ({ from: message.name ?? "", text: resultText(message) })),
        ...delivered(messages).map((message) => ({ from: DELIVERED_MESSAGE_SOURCE, text: textOf(message.content) })),
      ],
      userText: messages
        .filter(personal)
        .map((message) => textOf(message.content))
        .join("\n"),
    };
    const { results, userText } = read;
    const copied: EgressNote["copied"] = [];
    for (const [field, value] of stringLeaves(args, ""))
      for (const part of copiedRuns(value, results)) if (!userText.includes(part.text)) copied.push({ field, ...part });
    return { sources: taint.sources, copied };
  };
}

/** The string values of `value` with their paths. */
function stringLeaves(value: unknown, path: string): Array<[string, string]> {
  if (typeof value === "string") return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringLeaves(item, `${path}[${index}]`));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([key, item]) => stringLeaves(item, path ? `${path}.${key}` : key));
  return [];
}

/** The runs of `text` found in `results`, left to right, each as long as it goes on matching. */
function copiedRuns(text: string, results: ReadonlyArray<{ from: string; text: string }>) {
  const runs: Array<{ text: string; from: string }> = [];
  let at = 0;
  while (at + MIN_COPIED <= text.length) {
    const seed = text.slice(at, at + MIN_COPIED);
    let best = { length: 0, from: "" };
    for (const result of results) {
      let found = result.text.indexOf(seed);
      for (let seen = 0; found >= 0 && seen < MAX_OCCURRENCES; seen++) {
        let length = MIN_COPIED;
        while (at + length < text.length && result.text[found + length] === text[at + length]) length++;
        if (length > best.length) best = { length, from: result.from };
        found = result.text.indexOf(seed, found + 1);
      }
    }
    if (best.length === 0) {
      at++;
      continue;
    }
    // The spaces around a copied run are not what was copied.
    const copied = text.slice(at, at + best.length).trim();
    if (copied.length >= MIN_COPIED) runs.push({ text: copied, from: best.from });
    at += best.length;
  }
  return runs;
}

/** The words of an egress pause's reason, in the run's language. */
export function egressReason(tool: string, note: Pick<EgressNote, "sources">, language: Language): string {
  return loopWords(language).pause.egress(tool, note.sources.slice(0, 3), note.sources.length);
}
