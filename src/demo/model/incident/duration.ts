/** Minutes in one unit, by the unit's first letter (English) or word (Chinese). */
const MINUTES = { m: 1, h: 60, d: 1_440 } as const;

const EN_NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  "forty-five": 45,
  ninety: 90,
};

const ZH_DIGITS: Record<string, number> = {
  零: 0,
  〇: 0,
  一: 1,
  二: 2,
  两: 2,
  俩: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};

/** A number written in Chinese numerals below a thousand ("两", "十五", "二十", "一百二十"), or in digits. */
export function chineseNumber(text: string): number | undefined {
  if (/^\d+(?:\.\d+)?$/.test(text)) return Number(text);
  if (!/^[零〇一二两俩三四五六七八九十百]+$/.test(text)) return undefined;
  let total = 0;
  let digit: number | undefined;
  for (const character of text) {
    if (character === "百") {
      total += (digit ?? 1) * 100;
      digit = undefined;
    } else if (character === "十") {
      total += (digit ?? 1) * 10;
      digit = undefined;
    } else digit = ZH_DIGITS[character];
  }
  return total + (digit ?? 0);
}

const EN_WORD_NUMBER = Object.keys(EN_NUMBERS)
  .sort((a, b) => b.length - a.length)
  .join("|");
/** "2 hours", "2h", "1.5 hrs", "30 minutes", "30m", "an hour", "two days"; "and a half" adds half a unit. */
const EN_DURATION = new RegExp(
  `(?<![\\w.])(?<!\\bhalf\\s+)(\\d+(?:\\.\\d+)?|${EN_WORD_NUMBER})[\\s-]*(h|hrs?|hours?|m|mins?|minutes?|d|days?)\\b(\\s+and\\s+a\\s+half)?`,
  "gi",
);
/** "half an hour", "half a day". */
const EN_HALF = /\bhalf\s+an?\s+(hour|day)\b/gi;
/** "两小时", "2 小时", "两个小时", "一个半小时", "30 分钟", "十五分钟", "一天", "1.5小时"; a lone 分 only before a non-Han character ("十分感谢" is no duration). */
const ZH_DURATION =
  /(\d+(?:\.\d+)?|[零〇一二两俩三四五六七八九十百]+)\s*(?:个)?\s*(半)?\s*(小时|钟头|分钟|分(?!\p{Script=Han})|天)/gu;
/** "半小时", "半个小时", "半天" (a half with no number before it). */
const ZH_HALF = /(?<![\d零〇一二两俩三四五六七八九十百个])半\s*(?:个)?\s*(小时|钟头|天)/g;

function zhUnit(unit: string): number {
  if (unit === "天") return MINUTES.d;
  if (unit === "小时" || unit === "钟头") return MINUTES.h;
  return MINUTES.m;
}

/**
 * How long a request asks for, in whole minutes: every duration in the text, summed
 * ("1 hour 30 minutes", "2h30m", "一个半小时", "两小时三十分钟"). Undefined when the text names none.
 */
export function durationMinutes(text: string): number | undefined {
  let total = 0;
  let found = false;
  // "2h30m" is "2h 30m".
  const spaced = text.replace(/(\d)([hd])(?=\d)/gi, "$1$2 ");
  for (const match of spaced.matchAll(EN_DURATION)) {
    const count = EN_NUMBERS[match[1]!.toLowerCase()] ?? Number(match[1]);
    const unit = MINUTES[match[2]!.toLowerCase()[0] as keyof typeof MINUTES];
    total += (count + (match[3] ? 0.5 : 0)) * unit;
    found = true;
  }
  for (const match of text.matchAll(EN_HALF)) {
    total += (match[1]!.toLowerCase() === "day" ? MINUTES.d : MINUTES.h) / 2;
    found = true;
  }
  for (const match of text.matchAll(ZH_DURATION)) {
    const count = chineseNumber(match[1]!);
    if (count === undefined) continue;
    total += (count + (match[2] ? 0.5 : 0)) * zhUnit(match[3]!);
    found = true;
  }
  for (const match of text.matchAll(ZH_HALF)) {
    total += zhUnit(match[1]!) / 2;
    found = true;
  }
  return found ? Math.round(total) : undefined;
}
