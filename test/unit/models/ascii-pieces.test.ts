import { describe, expect, it } from "vitest";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import { cl100kPieceEnd, isAscii } from "../../../src/models/ascii-pieces.js";
import { tokenCounter } from "../../../src/models/token-count.js";
import { toolPayload } from "../../../bench/workload.js";

const SPLIT = new RegExp(cl100k.pat_str, "gu");

function piecesOf(text: string): string[] {
  const pieces: string[] = [];
  for (let start = 0, end = 0; start < text.length; start = end) {
    end = cl100kPieceEnd(text, start);
    pieces.push(text.slice(start, end));
  }
  return pieces;
}

/** Seeded ASCII texts dense in what the split pattern decides on: contractions, runs, spaces before breaks. */
function randomAscii(count: number, seed: number): string[] {
  let state = seed;
  const random = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
  const every = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));
  const fragments = [
    ...["'s", "'S", "'t", "'re", "'rE", "'Ve", "'ll", "'Ll", "'m", "'D", "'r", "'l", "'", "''", "'x"],
    ...[" ", "  ", "   ", "\t", "\n", "\r\n", " \n ", "\n\n", "\v", "\f", " \t\n", "\n "],
    ...["word", "Word", "WORD", "a", "1", "12", "123", "1234", "12345", '"', '\\"', ":", ",", "{", "}", "[", "]"],
    ...["!?", "...", "-", "_", "/", "\u0000", "\u001f", "\u007f", "<|endoftext|>"],
  ];
  return Array.from({ length: count }, () => {
    let text = "";
    for (let part = Math.floor(random() * 16); part >= 0; part -= 1)
      text += random() < 0.8 ? fragments[Math.floor(random() * fragments.length)] : every[Math.floor(random() * 128)];
    return text;
  });
}

describe("cutting ASCII text as cl100k_base does", () => {
  const texts = [
    ...randomAscii(30_000, 42),
    JSON.stringify(toolPayload("20kb", "q1")),
    "Check the payment service's recent errors; they're 5031 & 5032.\r\n\tThen  compare\n\n  with runbooks  ",
    "",
    " ",
    "\n",
    "x",
  ];

  it("cuts every text into the pieces the split pattern finds", () => {
    const differing = texts.filter((text) => {
      const expected = text.match(SPLIT) ?? [];
      const pieces = piecesOf(text);
      return pieces.length !== expected.length || pieces.some((piece, index) => piece !== expected[index]);
    });
    expect(differing).toEqual([]);
  });

  it("counts ASCII text as js-tiktoken counts it", () => {
    const exact = new Tiktoken(cl100k);
    const counter = tokenCounter("cl100k_base");
    for (const text of texts.slice(-7).concat(texts.slice(0, 500)))
      expect(counter.count(text)).toBe(exact.encode(text, [], []).length);
  });

  it("tells ASCII text from text with any other character", () => {
    expect(isAscii('{"ok":true,"data":"\\u0000 ~\\u007f"}')).toBe(true);
    expect(isAscii("payment 服务")).toBe(false);
    expect(isAscii("caf\u00e9")).toBe(false);
    expect(isAscii("\ud800")).toBe(false);
  });
});
