/**
 * Simple Chinese numerals: 零 一 二 两 三 … 九, 十, 百, and their combinations
 * up to 999 (十五, 二十三, 两百零五). Enough for counts, days and months.
 */

const DIGITS: Readonly<Record<string, number>> = {
  零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9,
};

/** Characters that can appear in a simple Chinese numeral. */
export const CHINESE_NUMERAL_CHARACTERS = '零〇一二两三四五六七八九十百';

/** Parses a Chinese numeral (or Arabic digits); returns `undefined` when it is not one. */
export function parseChineseNumber(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  if (text.length === 0 || [...text].some((character) => !CHINESE_NUMERAL_CHARACTERS.includes(character))) return undefined;
  let total = 0;
  let current: number | undefined;
  let lastUnit = Infinity;
  for (const character of text) {
    if (character in DIGITS) {
      if (current !== undefined && current !== 0) return undefined;
      current = DIGITS[character]!;
      continue;
    }
    const unit = character === '百' ? 100 : 10;
    if (unit >= lastUnit) return undefined;
    total += (current ?? 1) * unit;
    current = undefined;
    lastUnit = unit;
  }
  return total + (current ?? 0);
}
