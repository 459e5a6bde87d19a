/**
 * Rough token counts for endpoints that send no `usage`: one token per CJK
 * character, one per four other characters. Good enough for per-turn budgets
 * and dashboards, which is all it is used for; records say when it was used.
 */
import type { ChatMessage } from './types.js';

const CJK_CHARACTER = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/gu;

/** Number of CJK characters (Han, kana, Hangul, CJK and full-width punctuation) in `text`. */
export function countCjkCharacters(text: string): number {
  return text.match(CJK_CHARACTER)?.length ?? 0;
}

/** Estimated tokens in `text`: CJK characters count 1 each, other characters 1/4 each (rounded up). */
export function estimateTokens(text: string): number {
  if (text.length === 0) return 0;
  const cjk = countCjkCharacters(text);
  const other = [...text].length - cjk;
  return cjk + Math.ceil(other / 4);
}

/** Estimated prompt tokens of a message list (contents only). */
export function estimateMessagesTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((total, message) => total + estimateTokens(message.content), 0);
}
