import type { BaseMessage } from "@langchain/core/messages";
import { textOf } from "../../models/message-text.js";

/** An observation as the model reads it from a ToolMessage (design §2.2). */
export type SeenObservation =
  { ok: true; data: unknown; truncated: boolean } | { ok: false; errorCode: string; message: string };

/** One call of the current turn and what came back. */
export interface TurnCall {
  /** Call id. */
  id: string;
  /** Tool name. */
  tool: string;
  /** Args as proposed. */
  args: Record<string, unknown>;
  /** The observation, once the loop wrote it. */
  observation?: SeenObservation;
}

/** The conversation since the user's latest message: the request and every call made for it. */
export interface Turn {
  /** Text of the latest user message. */
  request: string;
  /** Calls made since, in order. */
  calls: TurnCall[];
}

/** Reads the current turn from the messages the model is given. */
export function readTurn(messages: readonly BaseMessage[]): Turn {
  let start = -1;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (messages[index]!.type === "human") {
      start = index;
      break;
    }
  }
  const request = start >= 0 ? textOf(messages[start]!.content) : "";
  const calls: TurnCall[] = [];
  const byId = new Map<string, TurnCall>();
  for (const message of messages.slice(start + 1)) {
    if (message.type === "ai") {
      const ai = message as BaseMessage & {
        tool_calls?: Array<{ id?: string; name: string; args: Record<string, unknown> }>;
      };
      for (const call of ai.tool_calls ?? []) {
        const entry: TurnCall = { id: call.id ?? "", tool: call.name, args: call.args ?? {} };
        calls.push(entry);
        if (call.id) byId.set(call.id, entry);
      }
    } else if (message.type === "tool") {
      const tool = message as BaseMessage & { tool_call_id: string; name?: string };
      const observation = parseObservation(textOf(message.content));
      const call = byId.get(tool.tool_call_id);
      if (call) call.observation = observation;
      else calls.push({ id: tool.tool_call_id, tool: tool.name ?? "unknown", args: {}, observation });
    }
  }
  return { request, calls };
}

/** Texts of the user's earlier messages in the conversation, the latest first (the current request left out). */
export function earlierRequests(messages: readonly BaseMessage[]): string[] {
  const requests = messages.filter((message) => message.type === "human").map((message) => textOf(message.content));
  return requests.slice(0, -1).reverse();
}

/** The latest observation of a tool in the turn (undefined while the tool was not called or not answered). */
export function lastObservation(turn: Turn, tool: string): SeenObservation | undefined {
  return [...turn.calls].reverse().find((call) => call.tool === tool && call.observation)?.observation;
}

/** Whether the tool was already called in the turn (answered or not). */
export function wasCalled(turn: Turn, tool: string): boolean {
  return turn.calls.some((call) => call.tool === tool);
}

/** Parses a ToolMessage's JSON; text that is not an observation is reported as such, never guessed at. */
function parseObservation(content: string): SeenObservation {
  try {
    const value = JSON.parse(content) as {
      ok?: unknown;
      data?: unknown;
      truncated?: unknown;
      errorCode?: unknown;
      message?: unknown;
    };
    if (value.ok === true) return { ok: true, data: value.data, truncated: value.truncated !== undefined };
    if (value.ok === false)
      return { ok: false, errorCode: String(value.errorCode ?? "internal"), message: String(value.message ?? "") };
  } catch {
    // Falls through: not JSON.
  }
  return { ok: false, errorCode: "unreadable", message: content.slice(0, 200) };
}
