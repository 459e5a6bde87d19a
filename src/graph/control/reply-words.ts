/**
 * Messages that are only a yes, a no or a cancel word (CONTRACT §3): they
 * answer a pending confirmation or drop the session's parked tasks instead of
 * being routed as a new request. A message counts only when, after removing
 * punctuation, spaces and a polite word or particle, nothing else is left —
 * "好的，帮我再订一间" is a new request, not a yes.
 */

/** Words that confirm every task awaiting confirmation. */
export const YES_WORDS: readonly string[] = Object.freeze([
  '确认', '确定', '好的', '好', '是的', '是', '对', '对的', '可以', '行', '没问题', '同意', '确认执行', '确认预订', '确认办理', '执行吧', '办吧',
  'yes', 'y', 'confirm', 'confirmed', 'ok', 'okay', 'sure', 'yep', 'yeah', 'go ahead', 'do it', 'proceed',
]);

/** Words that reject every task awaiting confirmation (parked tasks waiting for keys are kept). */
export const NO_WORDS: readonly string[] = Object.freeze(['不', '不要', '不是', '否', '不了', '不行', '不对', 'no', 'n', 'nope', "don't", 'do not']);

/** Words that drop every parked task of the session (a cancel word also rejects confirmations). */
export const CANCEL_WORDS: readonly string[] = Object.freeze([
  '取消', '算了', '不用了', '不用', '别办了', '先不要了', '取消吧', '算了吧',
  'cancel', 'never mind', 'nevermind', 'stop', 'forget it', 'cancel it',
]);

const POLITE = /^(?:请|麻烦|please|ok|okay|那就|那)?\s*|(?:吧|啦|了|呀|啊|哦|please|thanks|thank you)?$/giu;
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
  const candidates = [plain, normalise(plain.replace(POLITE, ''))];
  for (const candidate of candidates) {
    for (const [kind, words] of sets) if (words.has(candidate)) return kind;
  }
  return null;
}
