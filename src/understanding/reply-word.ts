/**
 * Messages that are only a yes, a no or a cancel word (docs/api.md#conversation-rules): they
 * answer a pending confirmation or drop the session's parked tasks instead of
 * being routed as a new request. A message counts only when, after removing
 * punctuation, spaces and a polite word or particle, nothing else is left —
 * "好的，帮我再订一间" is a new request, not a yes.
 */

import { CANCEL_WORDS, NO_WORDS, POLITE_AFFIXES, YES_WORDS } from '../i18n/index.js';

const PUNCTUATION = /[\p{P}\p{S}\s]+/gu;

export type ReplyWord = 'yes' | 'no' | 'cancel';

const normalise = (text: string) => text.normalize('NFKC').toLowerCase().replace(PUNCTUATION, ' ').trim().replace(/\s+/g, ' ');
const sets: [ReplyWord, Set<string>][] = [
  ['cancel', new Set(CANCEL_WORDS.map(normalise))],
  ['yes', new Set(YES_WORDS.map(normalise))],
  ['no', new Set(NO_WORDS.map(normalise))],
];

/** The kind of a message that is only a yes / no / cancel word, else null. */
export function classifyReplyWord(text: string): ReplyWord | null {
  const plain = normalise(text);
  if (plain === '' || plain.length > 24) return null;
  const candidates = [plain, normalise(plain.replace(POLITE_AFFIXES, ''))];
  for (const candidate of candidates) {
    for (const [kind, words] of sets) if (words.has(candidate)) return kind;
  }
  return null;
}
