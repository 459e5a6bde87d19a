/**
 * Text → terms for the offline matcher, with no segmenter and no model:
 * Chinese runs become character bigrams, Latin runs become lowercased, lightly
 * stemmed words. Grammatical particles (的 了 我 你 ...) break a Chinese run so
 * no bigram spans them ("北京的酒店" → 北京 | 酒店), and a short list of
 * function bigrams and English stop words is dropped: they say nothing about
 * which service a user wants, and would otherwise let "今天股票怎么样" look like
 * a weather question.
 */

const HAN = /\p{Script=Han}/u;
const HAN_GLOBAL = /\p{Script=Han}/gu;

/** Characters that end a Chinese run for term purposes (never inside a term). */
const PARTICLES = new Set('的了吗呢吧啊呀嘛哦和与及我你您他她它们请帮把给是在有个这那'.split(''));

/** Bigrams that carry no service meaning: time words, question words, politeness. */
const STOP_BIGRAMS = new Set(
  [
    '今天', '明天', '后天', '昨天', '今日', '明日', '现在', '时候', '早上', '上午', '中午', '下午', '晚上', '凌晨',
    '一下', '怎么', '么样', '什么', '可以', '需要', '告诉', '诉我', '知道', '想要', '能不', '不能', '能否', '麻烦',
    '谢谢', '你好', '您好', '请问', '一个', '一些', '如何', '为何', '哪里', '哪个', '多少', '还有', '然后', '另外',
    '同时', '并且', '顺便', '以及', '还要', '一起', '马上', '立刻', '尽快', '看看', '查查', '下周', '周一', '周二',
    '周三', '周四', '周五', '周六', '周日', '星期', '大后',
  ],
);

const STOP_WORDS = new Set(
  [
    'a', 'an', 'the', 'in', 'on', 'at', 'to', 'for', 'of', 'from', 'by', 'with', 'about', 'into', 'me', 'my', 'i',
    'you', 'your', 'we', 'our', 'us', 'it', 'its', 'is', 'are', 'was', 'be', 'am', 'do', 'does', 'did', 'can',
    'could', 'would', 'will', 'shall', 'should', 'please', 'what', 'how', 'which', 'when', 'where', 'who', 'and',
    'or', 'but', 'also', 'then', 'plus', 'this', 'that', 'these', 'those', 'some', 'any', 'like', 'want', 'need',
    'get', 'tell', 'let', 'show', 'give', 'today', 'tomorrow', 'tonight', 'morning', 'evening', 'afternoon',
    'next', 'there', 'here', 'just', 'now', 'have', 'has', 'know', 'up', 's', 't', 'd', 'll', 're', 've', 'm',
  ],
);

/** Normal form used everywhere in `src/intent`: NFKC (full-width → ASCII) and trimmed. */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').trim();
}

/** True when the character is a Chinese (Han) character. */
export function isHan(character: string): boolean {
  return HAN.test(character);
}

/**
 * The language to answer in: `zh` when the text has at least as many Chinese
 * characters as Latin words (and at least one), else `en`. Empty text is `zh`.
 */
export function detectLanguage(text: string): 'zh' | 'en' {
  const hanCount = (text.match(HAN_GLOBAL) ?? []).length;
  const latinWords = (text.match(/[A-Za-z]+/g) ?? []).length;
  if (hanCount === 0 && latinWords > 0) return 'en';
  return hanCount >= latinWords ? 'zh' : 'en';
}

/** Light English stemming: plural and possessive endings only. */
export function stemWord(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1);
  return word;
}

/** A term and whether it is a lone Chinese character (a weaker signal than a bigram or word). */
export interface Term {
  text: string;
  single: boolean;
}

/**
 * The distinct terms of a text. Spans listed in `masks` (e.g. known slot values
 * such as city names) are treated as separators: a city tells us nothing about
 * which service is wanted, and must not make "上海" alone match every card whose
 * examples mention Shanghai.
 */
export function termsOf(text: string, masks: readonly { start: number; end: number }[] = []): Term[] {
  let prepared = text.normalize('NFKC');
  if (masks.length > 0) {
    const characters = prepared.split('');
    for (const mask of masks) for (let index = mask.start; index < mask.end && index < characters.length; index++) characters[index] = ' ';
    prepared = characters.join('');
  }
  prepared = prepared.toLowerCase();
  const seen = new Map<string, Term>();
  const add = (term: Term) => {
    if (!seen.has(term.text)) seen.set(term.text, term);
  };
  for (const match of prepared.matchAll(/[a-z][a-z0-9']*|\p{Script=Han}+/gu)) {
    const run = match[0];
    if (isHan(run[0]!)) {
      for (const piece of run.split('').reduce<string[]>(splitOnParticles, [''])) {
        if (piece.length === 1) add({ text: piece, single: true });
        for (let index = 0; index + 1 < piece.length; index++) {
          const bigram = piece.slice(index, index + 2);
          if (!STOP_BIGRAMS.has(bigram)) add({ text: bigram, single: false });
        }
      }
    } else {
      const word = run.replace(/'s$|'/g, '');
      if (word.length === 0 || STOP_WORDS.has(word)) continue;
      add({ text: stemWord(word), single: false });
    }
  }
  return [...seen.values()];
}

function splitOnParticles(pieces: string[], character: string): string[] {
  if (PARTICLES.has(character)) {
    if (pieces[pieces.length - 1] !== '') pieces.push('');
  } else {
    pieces[pieces.length - 1] += character;
  }
  return pieces;
}

/**
 * True for words that say nothing about which service is wanted: English stop
 * words, Chinese particles and function bigrams (the lists above).
 */
export function isFunctionTerm(term: string): boolean {
  return STOP_WORDS.has(term) || STOP_BIGRAMS.has(term) || (term.length === 1 && PARTICLES.has(term));
}
