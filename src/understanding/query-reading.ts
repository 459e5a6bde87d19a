/**
 * One reading of the user's message per turn. The turn reads the text once,
 * before anything routes it, and every later step (recognisers, planners,
 * value rules) reads this value instead of normalising, detecting the
 * language or splitting clauses again.
 *
 * Two readings depend on the conversation, so they are made here too:
 * - The language of a message with no words of either language (a bare id
 *   "A1001", a number) is the session's: an answer to a Chinese question
 *   stays Chinese.
 * - A message that opens with a yes or no word and goes on ("好的，不过改成上海",
 *   "确认，不过日期改成后天", "yes, but make it Shanghai") while tasks are
 *   parked or held is a correction, not a confirmation: the yes/no word is set
 *   aside and the rest is what routes (`request`).
 */
import { splitClauses, type Clause } from './clause-splitter.js';
import { detectLanguage, normalizeText } from '../text/index.js';
import { CORRECTION_CONNECTORS, NO_WORDS, YES_WORDS } from '../i18n/index.js';

/** What the message does in the dialogue, as far as it can be told from its words. */
export type DialogueAct = 'request' | 'correction';

/** The turn's reading of the user's message. */
export interface QueryReading {
  /** What the user typed. */
  query: string;
  /** The normal form (NFKC, trimmed) of the part that routes: the whole message, or what follows the yes/no word of a correction. */
  normalizedQuery: string;
  /** Where `normalizedQuery` starts in the normal form of the whole message. */
  offset: number;
  /** The language to answer in. */
  language: 'zh' | 'en';
  act: DialogueAct;
  /** The clauses of `normalizedQuery`, each with where it starts in it. */
  clauses: Clause[];
}

/** What the reading needs of the session. */
export interface ReadingContext {
  /** The language of the session's last turn (what an id-only message is answered in). */
  sessionLanguage?: 'zh' | 'en';
  /** Tasks are parked or held: a yes/no word followed by more words corrects them. */
  openTasks?: boolean;
}

const SEPARATOR = /^[\s\p{P}]+/u;
const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const byLength = (words: readonly string[]) => [...words].sort((a, b) => b.length - a.length).map(escape);
/** A yes/no word, then punctuation or a connector ("，不过", ", but"), then the rest. */
const LEADING_REPLY = new RegExp(
  `^(?:${byLength([...YES_WORDS, ...NO_WORDS]).join('|')})(?:[\\s\\p{P}]+(?:${byLength(CORRECTION_CONNECTORS).join('|')})?|(?:${byLength(CORRECTION_CONNECTORS).join('|')}))[\\s\\p{P}]*`,
  'iu',
);

/** True when the text holds no word of either language: ids, numbers, punctuation ("A1001", "2024051812345678"). */
export function hasNoLanguage(text: string): boolean {
  if (/\p{Script=Han}/u.test(text)) return false;
  const words = text.match(/[A-Za-z][A-Za-z'-]*/g) ?? [];
  // Letters glued to digits are an id, not a word.
  const letterRuns = [...text.matchAll(/[A-Za-z0-9]+/g)].map((match) => match[0]).filter((token) => !/\d/.test(token));
  return words.length === 0 || letterRuns.length === 0;
}

/** Reads the message once (see the file header). */
export function readTurnQuery(query: string, context: ReadingContext = {}): QueryReading {
  const whole = normalizeText(query);
  let normalizedQuery = whole;
  let offset = 0;
  let act: DialogueAct = 'request';
  if (context.openTasks) {
    const lead = LEADING_REPLY.exec(whole);
    const rest = lead ? whole.slice(lead[0].length).replace(SEPARATOR, '') : '';
    if (lead && rest.length > 0) {
      offset = whole.length - rest.length;
      normalizedQuery = rest;
      act = 'correction';
    }
  }
  const language = context.sessionLanguage && hasNoLanguage(whole) ? context.sessionLanguage : detectLanguage(query);
  return { query, normalizedQuery, offset, language, act, clauses: splitClauses(normalizedQuery) };
}
