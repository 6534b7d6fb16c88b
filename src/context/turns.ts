import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { proposedCalls } from "../contracts/calls.js";
import { excerpt, type TurnTexts } from "./memory-block.js";
import { textOf } from "../models/message-text.js";

/** Messages a request keeps or leaves out together: an assistant message with its calls' results, or one message. */
export interface Unit {
  /** In order: the assistant message first, then the results of its calls. */
  messages: BaseMessage[];
  /** The call ids the unit proposes. */
  callIds: string[];
}

/** One user message and what followed it, up to the next user message. */
export interface Turn {
  /** 1 for the thread's first user message; 0 for anything before it. */
  turn: number;
  /** The user message (absent for turn 0). */
  head?: BaseMessage;
  /** What followed, in order. */
  units: Unit[];
}

/**
 * The history split into turns and units. A result is kept with the assistant message that
 * proposed it wherever it sits, so no cut can ever separate a call from its result.
 */
export function splitTurns(history: readonly BaseMessage[]): Turn[] {
  const turns: Turn[] = [];
  let current: Turn = { turn: 0, units: [] };
  const unitOfCall = new Map<string, Unit>();
  for (const message of history) {
    if (HumanMessage.isInstance(message)) {
      if (current.turn > 0 || current.units.length > 0) turns.push(current);
      current = { turn: current.turn + 1, head: message, units: [] };
      continue;
    }
    if (ToolMessage.isInstance(message)) {
      const owner = unitOfCall.get(message.tool_call_id);
      if (owner) {
        owner.messages.push(message);
        continue;
      }
    }
    const callIds = proposedCalls(message).map((call) => call.id);
    const unit: Unit = { messages: [message], callIds };
    for (const id of callIds) unitOfCall.set(id, unit);
    current.units.push(unit);
  }
  if (current.turn > 0 || current.units.length > 0) turns.push(current);
  return turns;
}

/** The messages of a turn, in order. */
export function turnMessages(turn: Turn): BaseMessage[] {
  return [...(turn.head ? [turn.head] : []), ...turn.units.flatMap((unit) => unit.messages)];
}

/** The turn without its tool steps: the user message and the plain answers. */
export function condensedTurn(turn: Turn): BaseMessage[] {
  const answers = turn.units.filter((unit) => unit.callIds.length === 0).flatMap((unit) => unit.messages);
  return [...(turn.head ? [turn.head] : []), ...answers];
}

/** What was asked and answered in each turn, for the lines of working memory. */
export function turnTexts(turns: readonly Turn[]): TurnTexts {
  const asked = new Map<number, string>();
  const answered = new Map<number, string>();
  for (const turn of turns) {
    if (turn.head) asked.set(turn.turn, excerpt(textOf(turn.head.content)));
    const answer = turn.units
      .flatMap((unit) => unit.messages)
      .filter((message) => AIMessage.isInstance(message) && proposedCalls(message).length === 0)
      .at(-1);
    if (answer) answered.set(turn.turn, excerpt(textOf(answer.content), 120));
  }
  return { asked, answered, currentTurn: turns.at(-1)?.turn ?? 0 };
}

/** The turn a new step belongs to: how many user messages the thread has. */
export function currentTurnOf(history: readonly BaseMessage[]): number {
  let turns = 0;
  for (const message of history) if (HumanMessage.isInstance(message)) turns += 1;
  return turns;
}
