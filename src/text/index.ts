/**
 * Generic text and value tools shared by every layer that reads user text:
 * normalisation and terms, phrase matching, Chinese numerals, dates, semantic
 * key extraction, mention order and the id scrubber for user-facing text.
 * Nothing here knows about recognisers, plans or the graph.
 */
export { detectLanguage, isFunctionTerm, isHan, normalizeText, stemWord, termsOf, type Term } from './text-terms.js';
export { createPhraseMatcher, lowerAscii, type PhraseHit, type PhraseMatcher } from './phrase-matcher.js';
export { CHINESE_NUMERAL_CHARACTERS, parseChineseNumber } from './chinese-numerals.js';
export { findDates, type DateHit } from './date-extractor.js';
export { statesValueOutside } from './value-grounding.js';
export { addLocalDays, formatLocalDate, startOfLocalDay } from './local-date.js';
export {
  enumValueMatcher,
  isRuledOut,
  extractForAgent,
  extractKeys,
  extractOne,
  findEmails,
  findPhones,
  isCnMobile,
  isEmailAddress,
  missingKeys,
  type ExtractionResult,
  type KeyExtractor,
  type KeyOutcome,
  type ValueAt,
} from './key-extractor.js';
export { orderByMention } from './mention-order.js';
export { credentialParts, isOpaque } from './credential-parts.js';
export {
  createTextScrubber,
  idTerms,
  inventedIdPattern,
  secretTerms,
  type KeepWhole,
  type ScrubPattern,
  type ScrubTerm,
  type TextScrubber,
  type TextScrubberOptions,
} from './id-scrubber.js';
export { type DeltaStream, type MessageStream, type ShownMessage } from './scrub-stream.js';
export { DATA_BLOCK_RULES, dataBlock, neutraliseMarkers } from './data-block.js';
export { truncateText } from './truncate.js';
export { createPromptLeakCheck, LEAK_REPLACEMENT, type PromptLeakCheck } from './prompt-leak-check.js';
export { hasInjectionSignals } from './injection-signals.js';
export { foldCompatibility, replaceFolded, replacementsOf, spansFolded } from './compatibility-fold.js';
export type { ExtractSpec, SemanticKeySpec } from './key-specs.js';
export { createDisguisedSecrets, isInvisibleCharacter, MIN_DISGUISED_LENGTH, readingForm, type DisguisedSecrets } from './disguised-secrets.js';
