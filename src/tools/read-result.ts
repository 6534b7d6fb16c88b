import { z } from "zod";
import { ToolError } from "../contracts/errors.js";
import { jsonStringEnd } from "../contracts/formats/json-text.js";
import { codesIn } from "./facts.js";
import type { ResultStore } from "../storage/types.js";
import { defineTool, type ToolDefinition } from "./types.js";

const schema = z.object({
  callId: z
    .string()
    .min(1)
    .max(200)
    .describe("The id of the call whose full result to read, as a cut result's note or the working memory names it."),
  offset: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      "Character of the result's JSON text to start at: 0 for the beginning, or the offset a note or nextOffset gives.",
    ),
  limit: z
    .number()
    .int()
    .min(100)
    .max(100_000)
    .optional()
    .describe(
      "Most characters to return; a page also stays under the size cap of a result, so continue from nextOffset.",
    ),
});

/** One page of a stored result. */
export interface ResultPage {
  /** The call the result belongs to. */
  callId: string;
  /** The tool that produced it. */
  tool: string;
  /** Where this page starts in the result's JSON text. */
  offset: number;
  /** Where the next page starts; equals `totalChars` on the last page. */
  nextOffset: number;
  /** Length of the result's JSON text. */
  totalChars: number;
  /** Whether this page reaches the end. */
  done: boolean;
  /** The characters from `offset` to `nextOffset`. */
  text: string;
}

/** The loop's default cap on a result, for a host that does not say its own. */
const DEFAULT_CAP = 4_000;
/** Room for the observation's envelope (ok, source, fetchedAt) around a page, with the widest numbers. */
const ENVELOPE_SLACK = 16;
/** A page ends after the last separator in its final stretch, so no word, number or id is split between pages. */
const SNAP_WINDOW = 0.1;
const SEPARATORS = new Set([" ", "\n", "\t", ",", ";", ":", "}", "]", ")", "。", "，", "；", "、"]);

/**
 * `read_result`: pages through the full result of an earlier call of the same thread, stored
 * masked (design §2.7), when the observation was cut or the request no longer carries it.
 */
export function createReadResultTool(results: Pick<ResultStore, "getResult">): ToolDefinition {
  return defineTool({
    name: "read_result",
    description:
      "Read the full result of an earlier tool call of this conversation, a page at a time, when its observation was cut " +
      "(the note says which callId and offset) or only its summary is left in working memory. Returns text (a slice of the " +
      "result as JSON), offset, nextOffset, totalChars and done; call again with offset=nextOffset to read on. Read only " +
      "what you need: a search with narrower arguments is often better than paging everything. Only results of successful " +
      "calls are stored.",
    schema,
    readOnly: true,
    risk: "low",
    timeoutMs: 5_000,
    async run(args, ctx): Promise<ResultPage> {
      // Keyed by this thread: a call id of another thread is simply not found.
      const stored = await results.getResult(ctx.threadId, args.callId);
      if (!stored) throw new ToolError("not_found", `No stored result for call ${args.callId} in this conversation.`);
      const text = JSON.stringify(stored.raw) ?? "null";
      if (args.offset > text.length)
        throw new ToolError(
          "invalid_args",
          `offset ${args.offset} is past the end of the result (${text.length} characters).`,
        );
      const empty: ResultPage = {
        callId: args.callId,
        tool: stored.tool,
        offset: args.offset,
        nextOffset: text.length,
        totalChars: text.length,
        done: true,
        text: "",
      };
      const cap = ctx.observationMaxChars ?? DEFAULT_CAP;
      const envelope = JSON.stringify({
        ok: true,
        data: empty,
        source: { tool: "read_result" },
        fetchedAt: new Date().toISOString(),
      }).length;
      const budget = Math.min(args.limit ?? Number.POSITIVE_INFINITY, cap - envelope - ENVELOPE_SLACK);
      const end = pageEnd(text, args.offset, Math.max(1, budget));
      return { ...empty, nextOffset: end, done: end >= text.length, text: text.slice(args.offset, end) };
    },
    summarize(result) {
      const page = result as ResultPage;
      const codes = codesIn(page.text);
      return [
        `${page.callId} (${page.tool}) characters ${page.offset}–${page.nextOffset} of ${page.totalChars}${page.done ? ", to the end" : ""}`,
        ...(codes.length > 0 ? [`codes: ${codes.join(", ")}`] : []),
      ];
    },
  });
}

/** Where a page from `offset` ends: within `budget` escaped characters, after a separator when one is near the end. */
function pageEnd(text: string, offset: number, budget: number): number {
  const end = jsonStringEnd(text, offset, budget);
  if (end >= text.length) return text.length;
  if (end <= offset) return Math.min(text.length, offset + 1);
  const floor = end - Math.floor((end - offset) * SNAP_WINDOW);
  for (let index = end; index > floor; index -= 1) if (SEPARATORS.has(text[index - 1]!)) return index;
  return end;
}
