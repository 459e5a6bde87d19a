/**
 * The message's reading: what the turn reads of the user's words once
 * (normal form, language, dialogue act, clauses and the request words in them) and the readings built on it
 * (does it refer to the previous turn). Every room above reads these instead
 * of the raw text.
 */
export { announcesEarly, hasNoLanguage, readingInSession, readMessage, readText, readTurnQuery, textOfReading, type DialogueAct, type MessageReading, type QueryReading, type ReadText, type ReadingContext, type ReadingRegistry } from './query-reading.js';
export { separatorBetween, splitClauses, splitRequests, type Clause } from './clause-splitter.js';
export { createWordOwnership, isFollowUp, refersToPreviousTurn, withoutComparison, withoutPlaceReference } from './follow-up.js';
export { classifyReplyWord, type ReplyWord } from './reply-word.js';
export { readSelectiveReply, type HeldTaskNames } from './selective-reply.js';
export { requestWordIn, requestWordOf, type ReadClause, type RequestWord, type RequestWordCard } from './request-words.js';
export { spannedWords, spanOfValue, valueForm, type ValueSpan } from './value-spans.js';
export { cacheForm, cacheFormOfNormal, taskNormalForm } from './cache-form.js';
