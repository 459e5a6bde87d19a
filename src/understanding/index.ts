/**
 * The message's reading: what the turn reads of the user's words once
 * (normal form, language, dialogue act, clauses) and the readings built on it
 * (does it refer to the previous turn). Every room above reads these instead
 * of the raw text.
 */
export { hasNoLanguage, readTurnQuery, type DialogueAct, type QueryReading, type ReadingContext } from './query-reading.js';
export { separatorBetween, splitClauses, splitRequests, type Clause } from './clause-splitter.js';
export { createWordOwnership, isFollowUp, refersToPreviousTurn, withoutComparison, withoutPlaceReference } from './follow-up.js';
