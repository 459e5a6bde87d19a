/**
 * The message's reading, made once per turn by the turn (`readMessage`, in
 * `turn/run-turn.ts`) before anything routes it, immutable, and handed on in
 * the turn's context: its normal form, its language, whether it is only a
 * yes / no / cancel word, its clauses with where each starts, and in each
 * clause the request words of the registry's agents it names. Every later
 * step (control, recognisers, planners, value rules) reads this value instead
 * of normalising, detecting the language, classifying the reply word,
 * splitting clauses or matching request words again. The eval reads its lines
 * with the same function.
 *
 * Two readings depend on the conversation; both are made here, once, and the
 * control node picks between them when the session is known
 * (`readingInSession`, a choice, not a second reading):
 * - The language of a message with no words of either language (a bare id
 *   "A1001", a number) is the session's: an answer to a Chinese question
 *   stays Chinese.
 * - A message that opens with a yes or no word and goes on ("好的，不过改成上海",
 *   "确认，不过日期改成后天", "yes, but make it Shanghai") while tasks are
 *   parked or held is a correction, not a confirmation: the yes/no word is set
 *   aside and the rest is what routes.
 */
import { splitClauses } from './clause-splitter.js';
import { cardsOf, readClause, type ReadClause, type RequestWordCard } from './request-words.js';
import { classifyReplyWord, type ReplyWord } from './reply-word.js';
import { detectLanguage } from '../text/index.js';
import { CORRECTION_CONNECTORS, NO_WORDS, YES_WORDS } from '../i18n/index.js';

/** What the message does in the dialogue, as far as it can be told from its words. */
export type DialogueAct = 'request' | 'correction';

/** The message read as a request or as a correction: what routes, in what language, and its reply word. */
export interface QueryReading {
  /** What the user typed. */
  readonly query: string;
  /** The normal form (NFKC, trimmed) of the part that routes: the whole message, or what follows the yes/no word of a correction. */
  readonly normalizedQuery: string;
  /** Where `normalizedQuery` starts in the normal form of the whole message. */
  readonly offset: number;
  /** The language to answer in. */
  readonly language: 'zh' | 'en';
  readonly act: DialogueAct;
  /** The clauses of `normalizedQuery`, each with where it starts in it and the request words it holds. */
  readonly clauses: readonly ReadClause[];
  /** The message is only a yes / no / cancel word (a correction: the word it opens with, when its rest is one), else null. */
  readonly replyWord: ReplyWord | null;
}

/** The turn's one reading of the user's message (see the file header). */
export interface MessageReading {
  /** What the user typed. */
  readonly query: string;
  /** The whole message's normal form (NFKC) as typed, not trimmed: where the spans of its values point (`value-spans.ts`). */
  readonly normal: string;
  /** The message's own words fix its language (false for ids, numbers, punctuation or nothing: the session's language). */
  readonly hasLanguage: boolean;
  /** The whole message as a request. */
  readonly asRequest: QueryReading;
  /** When it opens with a yes/no word and goes on: the rest, as a correction of open tasks. */
  readonly asCorrection?: QueryReading;
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

/** The registry the reading finds request words of (a snapshot): its agents' keywords and names. */
export interface ReadingRegistry {
  readonly byId: ReadonlyMap<string, RequestWordCard>;
}

/**
 * Reads the message once (see the file header). The result and everything in it are frozen.
 * `registry` gives the agents whose request words the clauses carry; without one (a reading
 * for recognition only, as a bench line) the clauses carry none.
 */
export function readMessage(query: string, registry?: ReadingRegistry): MessageReading {
  const cards = cardsOf(registry);
  const normal = query.normalize('NFKC');
  const whole = normal.trim();
  const language = detectLanguage(query);
  const replyWord = classifyReplyWord(query);
  const asRequest = part(query, whole, 0, language, 'request', replyWord, cards);
  const lead = LEADING_REPLY.exec(whole);
  const rest = lead ? whole.slice(lead[0].length).replace(SEPARATOR, '') : '';
  const asCorrection = lead && rest.length > 0 ? part(query, rest, whole.length - rest.length, language, 'correction', replyWord ?? classifyReplyWord(rest), cards) : undefined;
  return Object.freeze({ query, normal, hasLanguage: !hasNoLanguage(whole), asRequest, ...(asCorrection ? { asCorrection } : {}) });
}

function part(query: string, normalizedQuery: string, offset: number, language: 'zh' | 'en', act: DialogueAct, replyWord: ReplyWord | null, cards: readonly RequestWordCard[]): QueryReading {
  const clauses = Object.freeze(splitClauses(normalizedQuery).map((clause) => readClause(clause, cards)));
  return Object.freeze({ query, normalizedQuery, offset, language, act, clauses, replyWord });
}

/**
 * The reading this turn goes by, once the session is known: the correction when
 * tasks are open and the message corrects them, else the request; in the
 * session's language when the message has none of its own. Nothing is read
 * again: this only chooses among what `readMessage` read.
 */
export function readingInSession(message: MessageReading, context: ReadingContext = {}): QueryReading {
  const chosen = context.openTasks && message.asCorrection ? message.asCorrection : message.asRequest;
  if (message.hasLanguage || !context.sessionLanguage || context.sessionLanguage === chosen.language) return chosen;
  return Object.freeze({ ...chosen, language: context.sessionLanguage });
}

/**
 * Whether the turn's first frame (`intent_start`) can leave before any storage
 * read or recognition: the message's own words fix its language and it is a
 * request, not a bare yes / no / cancel word (those are answered without
 * recognition). The turn sends it then, and the graph knows it was sent from
 * the same reading.
 */
export function announcesEarly(message: MessageReading): boolean {
  return message.hasLanguage && message.asRequest.replyWord === null;
}

/**
 * A text read for its clauses: the words as written, their normal form, and
 * the clauses of the normal form (where each starts in it) with the request
 * words they hold. The planners read their texts this way: the message's own
 * reading (`textOfReading`), or a text that is not the message (`readText`).
 */
export interface ReadText {
  /** The words as written, when they line up with `normal` character for character; else `normal`. */
  readonly written: string;
  /** The normal form (NFKC) the clauses are positions in. */
  readonly normal: string;
  readonly clauses: readonly ReadClause[];
}

/**
 * The message's reading as a read text, `words` being the user's words it was
 * read from (what they typed, or the part a correction routes): nothing is
 * read again.
 */
export function textOfReading(reading: QueryReading, words: string): ReadText {
  const trimmed = words.trim();
  return Object.freeze({ written: trimmed.length === reading.normalizedQuery.length ? trimmed : reading.normalizedQuery, normal: reading.normalizedQuery, clauses: reading.clauses });
}

/**
 * Reads a text that is not the message (a rewrite carrying earlier turns'
 * words, the model's rewrite, a stored message): its normal form and clauses,
 * with the request words of `cards`. The one place outside `readMessage` that
 * splits clauses and finds request words; the caller reads each such text once.
 */
export function readText(text: string, cards: readonly RequestWordCard[]): ReadText {
  const normal = text.normalize('NFKC');
  const clauses = Object.freeze(splitClauses(normal).map((clause) => readClause(clause, cards)));
  return Object.freeze({ written: text.length === normal.length ? text : normal, normal, clauses });
}

/** Reads a text that is the message and nothing else (an eval line, a bench query): the message read as a request. */
export function readTurnQuery(query: string, registry?: ReadingRegistry): QueryReading {
  return readMessage(query, registry).asRequest;
}
