import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { Evidence } from "./incident-records.js";
import type { IncidentTimeline } from "./timeline-entry.js";

/** The most of one tool result the model is shown. */
const EVIDENCE_CHARS = 1_500;
/** The most tool results the model is shown, the first ones. */
const EVIDENCE_ITEMS = 40;

const INSTRUCTIONS = [
  "You write the narrative of an incident postmortem draft from opspilot's records.",
  "Write two short parts in Markdown: a summary paragraph (what fired, what the investigation found, what was done, how it ended),",
  "then a bullet list of findings. Every claim that rests on a tool result ends with that result's call id in brackets, like [call_1].",
  "Use only times, numbers and names that the records or the tool results below hold; never estimate, round or invent one.",
  "Do not repeat the timeline or the actions table: they are added from the records. No headings.",
].join("\n");

/** What the model is told: the timeline and the tool results, each cut to a size. */
function recordsText(
  timeline: IncidentTimeline,
  evidence: readonly Evidence[],
  conclusions: readonly string[],
): string {
  const results = evidence
    .slice(0, EVIDENCE_ITEMS)
    .map((item) => `[${item.callId}] ${item.tool}:\n${item.text.slice(0, EVIDENCE_CHARS)}`);
  return [
    "Timeline (JSON):",
    JSON.stringify(timeline),
    "",
    "Tool results:",
    ...results,
    "",
    "The investigation's conclusions:",
    ...conclusions,
  ].join("\n");
}

/** The narrative a model writes from the records (its text, trimmed); throws what the model threw. */
export async function writeNarrative(
  model: BaseChatModel,
  input: { timeline: IncidentTimeline; evidence: readonly Evidence[]; conclusions: readonly string[] },
  signal?: AbortSignal,
): Promise<string> {
  const reply = await model.invoke(
    [new SystemMessage(INSTRUCTIONS), new HumanMessage(recordsText(input.timeline, input.evidence, input.conclusions))],
    { signal },
  );
  const content = reply.content;
  const text =
    typeof content === "string"
      ? content
      : content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("");
  return text.trim();
}
