import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { cutMessage } from "./request-cut.js";
import type { TokenMeter } from "./request-tokens.js";
import { condensedTurn, turnMessages, type Turn, type Unit } from "./turns.js";

/** The least a cut result keeps. */
const MIN_RESULT_TOKENS = 120;

/** Tokens the history may take: `room` for all of it, `latestRoom` for the latest step alone. */
export interface Rooms {
  room: number;
  latestRoom: number;
}

/**
 * The history messages a request carries within its rooms, and the first turn of the run of whole
 * turns: the latest step always, then earlier turns newest first, whole while they fit, then condensed.
 */
export function chooseMessages(turns: readonly Turn[], rooms: Rooms, meter: TokenMeter) {
  const current = turns.at(-1);
  if (!current) return { messages: [] as BaseMessage[], wholeFrom: 0 };
  const { room } = rooms;
  const tokensOf = (messages: readonly BaseMessage[]) => messages.reduce((sum, m) => sum + meter.message(m), 0);
  const latest = latestMessages(current, rooms, meter);
  let used = tokensOf(latest);
  let wholeFrom = latest.length === turnMessages(current).length ? current.turn : current.turn + 1;
  let condensing = wholeFrom !== current.turn;
  const earlier: BaseMessage[][] = [];
  for (let index = turns.length - 2; index >= 0; index -= 1) {
    const turn = turns[index]!;
    const whole = turnMessages(turn);
    const wholeTokens = condensing ? Number.POSITIVE_INFINITY : tokensOf(whole);
    if (used + wholeTokens <= room) {
      earlier.unshift(whole);
      used += wholeTokens;
      wholeFrom = turn.turn;
      continue;
    }
    condensing = true;
    const condensed = condensedTurn(turn);
    const condensedTokens = tokensOf(condensed);
    if (used + condensedTokens > room) break;
    earlier.unshift(condensed);
    used += condensedTokens;
  }
  return { messages: [...earlier.flat(), ...latest], wholeFrom };
}

/**
 * The current turn's messages: its user message and its newest units, as many as fit `room`;
 * the latest unit always, its results cut only when it does not fit `latestRoom`.
 */
function latestMessages(turn: Turn, { room, latestRoom }: Rooms, meter: TokenMeter): BaseMessage[] {
  const head = turn.head ? [turn.head] : [];
  const units: Unit[] = [];
  let used = head.reduce((sum, m) => sum + meter.message(m), 0);
  for (let index = turn.units.length - 1; index >= 0; index -= 1) {
    const unit = turn.units[index]!;
    const tokens = unit.messages.reduce((sum, m) => sum + meter.message(m), 0);
    if (units.length > 0 && used + tokens > room) break;
    units.unshift(unit);
    used += tokens;
  }
  const messages = [...head, ...units.flatMap((unit) => unit.messages)];
  return used <= latestRoom ? messages : squeeze(messages, latestRoom, meter);
}

/** The messages with their results (then the user message) cut so that together they fit `room`. */
function squeeze(messages: readonly BaseMessage[], room: number, meter: TokenMeter): BaseMessage[] {
  const tokensOf = (list: readonly BaseMessage[]) => list.reduce((sum, m) => sum + meter.message(m), 0);
  const results = messages.filter((m) => ToolMessage.isInstance(m)).length;
  const others = tokensOf(messages.filter((m) => !ToolMessage.isInstance(m)));
  const cutResults = (perResult: number) =>
    messages.map((m) =>
      ToolMessage.isInstance(m) && meter.message(m) > perResult ? cutMessage(m, perResult, meter) : m,
    );
  let perResult = Math.max(MIN_RESULT_TOKENS, Math.floor((room - others) / Math.max(1, results)) - 8);
  let cut = cutResults(perResult);
  let used = tokensOf(cut);
  // A cut lands near its aim, not always under it: aim lower by what the results overshot.
  for (let tries = 0; tries < 3 && used > room && perResult > MIN_RESULT_TOKENS; tries += 1) {
    perResult = Math.max(MIN_RESULT_TOKENS, perResult - Math.ceil((used - room) / Math.max(1, results)) - 8);
    cut = cutResults(perResult);
    used = tokensOf(cut);
  }
  const head = cut[0];
  if (used > room && head && head.getType() === "human") {
    const headRoom = Math.max(MIN_RESULT_TOKENS, meter.message(head) - (used - room));
    // The cut's note makes a short question longer: it is cut only when that leaves it shorter.
    const shorter = cutMessage(head, headRoom, meter);
    if (meter.message(shorter) < meter.message(head)) cut = [shorter, ...cut.slice(1)];
  }
  return cut;
}
