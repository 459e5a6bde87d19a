/**
 * A value the user gave for an enum key that the enum does not list ("帮我订南京的
 * 酒店" when the hotel serves 北京, 上海 …). Reporting it as missing would ask
 * again as if nothing was said, so extraction reports it as invalid and the
 * answer names it and the allowed values (docs/api.md#conversation-rules).
 *
 * Without a list of every place on earth, a name is recognised by where it
 * stands — the positions the registry's own examples put an enum value in:
 * - after a place word: 在 / 去 / 到 / 飞往 / 前往 / 来 / 订 … followed by what one
 *   does there or a pause ("在南京住两晚", "去南京出差", "订南京的酒店");
 * - before the service it is for: "南京的酒店", "南京明天天气怎么样";
 * - English: a capitalised name after in / to / at ("a hotel in Nanjing"), or
 *   before weather / hotel ("Nanjing weather");
 * - alone: a reply that is only a name ("南京", "Nanjing?").
 * Dates, times and counts are masked first, and a Han candidate may not hold a
 * function or action character (的, 我, 订, 便 …), so "订明天的酒店", "订个便宜的酒店"
 * or "谢谢" are not taken for places.
 */
import { CHINESE_NUMERAL_CHARACTERS } from './chinese-numerals.js';
import { findDates } from './date-extractor.js';

const HAN = '\\u4e00-\\u9fff';
const MASK = '#';
/** Characters that do not occur in a place name but do in the words around one. */
const NOT_IN_NAMES = new Set(
  [...'的了吗呢吧啊呀么嘛哦个些要想不是有没我你他她它们这那哪什怎样好便宜贵点少最很更太近远早晚和与或及也都还就再又把被给让叫帮请订查找看买卖退换住去到来回在从往飞吃喝玩说问能会可以行谢对错没见时候下取消确认知道改号'],
);
const PLACE_WORD = '(?:在|去|到|飞往|飞到|飞|前往|来|回|订|住在)';
const AFTER_PLACE = `(?=${MASK}*(?:的|市|住|待|玩|出差|旅游|旅行|过夜|入住|出发|天气|酒店|[，,。.！!？?；;\\s]|$))`;
const SERVICE_NOUN = '(?:天气|气温|酒店|住宿|宾馆|民宿|旅馆)';
const HAN_AFTER_PLACE = new RegExp(`${PLACE_WORD}([${HAN}]{2,4}?)${AFTER_PLACE}`, 'gu');
const HAN_BEFORE_SERVICE = new RegExp(`((?:(?![的市])[${HAN}])+)(?=[${MASK}\\s]*市?[${MASK}\\s]*的?[${MASK}\\s]*${SERVICE_NOUN})`, 'gu');
const LATIN_NAME = "[A-Z][A-Za-z'-]+(?:\\s+[A-Z][A-Za-z'-]+){0,2}";
const LATIN_AFTER_PLACE = new RegExp(`\\b(?:in|to|at)\\s+(${LATIN_NAME})`, 'g');
const LATIN_BEFORE_SERVICE = new RegExp(`(?:^|[,.;!?]\\s*)(${LATIN_NAME})(?=\\s+(?:weather|hotels?|forecast)\\b)`, 'g');
const LATIN_NOT_NAMES = new Set(
  'i,me,my,the,a,an,this,that,what,how,please,thanks,thank,hello,hi,yes,no,ok,okay,sure,monday,tuesday,wednesday,thursday,friday,saturday,sunday,january,february,march,april,may,june,july,august,september,october,november,december,today,tomorrow,tonight,terminal,airport,hotel,room,cancel,stop,never,mind,confirm'.split(','),
);
const MEASURE_WORDS = '个位晚间天张人次件本台份夜名只条岁辆家层楼元块斤箱瓶杯双套周月年号';

/** The name the user gave in a place position that none of `allowed` is, or null. */
export function findOffListValue(text: string, allowed: readonly string[], today: Date): { raw: string } | null {
  const masked = maskNonNames(text, today);
  const listed = (name: string) => allowed.some((value) => value.toLowerCase() === name.toLowerCase());
  const found: { start: number; raw: string }[] = [];
  const take = (pattern: RegExp, accept: (name: string) => boolean) => {
    for (const match of masked.matchAll(pattern)) {
      const name = match[1]!;
      if (!accept(name) || listed(name)) continue;
      found.push({ start: match.index + match[0].indexOf(name), raw: name });
    }
  };
  take(HAN_AFTER_PLACE, isHanName);
  // Before a service noun the name ends the run of characters: its longest clean tail ("帮我订南京" → 南京).
  for (const match of masked.matchAll(HAN_BEFORE_SERVICE)) {
    const run = match[1]!;
    for (let length = Math.min(4, run.length); length >= 2; length--) {
      const name = run.slice(run.length - length);
      if (!isHanName(name)) continue;
      if (!listed(name)) found.push({ start: match.index + run.length - length, raw: name });
      break;
    }
  }
  take(LATIN_AFTER_PLACE, isLatinName);
  take(LATIN_BEFORE_SERVICE, isLatinName);
  for (const piece of piecesOf(masked)) {
    const bare = piece.text.replace(/(?:呢|吧|啊|呀|吗)$/u, '').replace(/^(?:what about|how about)\s+/i, '').trim();
    if ((new RegExp(`^[${HAN}]{2,4}$`, 'u').test(bare) && isHanName(bare)) || (new RegExp(`^${LATIN_NAME}$`).test(bare) && isLatinName(bare))) {
      if (!listed(bare)) found.push({ start: piece.start + piece.text.indexOf(bare), raw: bare });
    }
  }
  if (found.length === 0) return null;
  // The latest mention wins, as for listed values.
  return { raw: found.reduce((latest, entry) => (entry.start > latest.start ? entry : latest)).raw };
}

/** Words of the requests themselves, never a place ("订酒店", "去机场"). */
const REQUEST_WORDS = /酒店|宾馆|民宿|旅馆|住宿|天气|气温|机票|航班|房|车|机场|服务|订单|快递|物流/u;

function isHanName(name: string): boolean {
  return [...name].every((character) => !NOT_IN_NAMES.has(character)) && !REQUEST_WORDS.test(name);
}

function isLatinName(name: string): boolean {
  return name.split(/\s+/).every((word) => !LATIN_NOT_NAMES.has(word.toLowerCase()));
}

/** `text` with dates, times, digits and counted numbers ("两晚") replaced by `#`, positions kept. */
function maskNonNames(text: string, today: Date): string {
  const characters = [...text];
  if (characters.length !== text.length) return text.replace(/\d/g, MASK);
  const spans = [
    ...findDates(text, today).map((hit) => ({ start: hit.start, end: hit.end })),
    ...[...text.matchAll(new RegExp(`[${CHINESE_NUMERAL_CHARACTERS}\\d]+[${MEASURE_WORDS}]|\\d+`, 'gu'))].map((match) => ({
      start: match.index,
      end: match.index + match[0].length,
    })),
  ];
  for (const span of spans) for (let index = span.start; index < span.end; index++) characters[index] = MASK;
  return characters.join('');
}

function piecesOf(text: string): { start: number; text: string }[] {
  const pieces: { start: number; text: string }[] = [];
  for (const match of text.matchAll(/[^，,。.！!？?；;\n]+/gu)) {
    const trimmed = match[0].trim();
    if (trimmed.length > 0) pieces.push({ start: match.index + match[0].indexOf(trimmed), text: trimmed });
  }
  return pieces;
}
