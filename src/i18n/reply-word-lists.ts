/**
 * The words that, alone in a message, answer a pending confirmation or drop
 * the session's parked tasks (docs/api.md#conversation-rules): yes, no and cancel in both
 * languages. `understanding/reply-word.ts` decides when a message is only one.
 */

/** Words that confirm every task awaiting confirmation. */
export const YES_WORDS: readonly string[] = Object.freeze([
  '确认', '确定', '好的', '好', '是的', '是', '对', '对的', '可以', '行', '没问题', '同意', '确认执行', '确认预订', '确认办理', '执行吧', '办吧',
  'yes', 'y', 'confirm', 'confirmed', 'ok', 'okay', 'sure', 'yep', 'yeah', 'go ahead', 'do it', 'proceed',
  // Saying that what was shown is right.
  '没错', '是的，没错', '对，没错', '确认无误', '无误', '正确', '嗯', '嗯嗯', '可以的',
  'correct', "that's right", "that's correct", 'that is correct', "yes, that's correct", 'yes, that is correct', "yes, that's right", 'sounds good', 'looks good',
]);

/** Words that reject every task awaiting confirmation (parked tasks waiting for keys are kept). */
export const NO_WORDS: readonly string[] = Object.freeze(['不', '不要', '不是', '否', '不了', '不行', '不对', '不需要', 'no', 'n', 'nope', 'nah', "don't", 'do not']);

/** Words that drop every parked task of the session (a cancel word also rejects confirmations). */
export const CANCEL_WORDS: readonly string[] = Object.freeze([
  '取消', '算了', '不用了', '不用', '别办了', '先不要了', '取消吧', '算了吧',
  'cancel', 'never mind', 'nevermind', 'stop', 'forget it', 'cancel it',
  '不办了', '先不办了', '不弄了', '不必了', '撤销', '先别办', '别办', '都取消', '全部取消', '算了，不要了', '算了，不用了',
  'forget about it', "don't bother", 'no need', 'cancel that', 'cancel everything', 'cancel all', 'never mind that',
]);

/** Polite words and particles around a reply word that do not change it ("请确认", "好的吧", "ok thanks"). */
export const POLITE_AFFIXES = /^(?:请|麻烦|please|ok|okay|那就|那)?\s*|(?:吧|啦|了|呀|啊|哦|谢谢|please|thanks|thank you)?$/giu;

/**
 * Words that, after a yes or no word, turn the message into a correction of
 * what waits ("好的，不过改成上海", "yes, but make it Shanghai").
 */
export const CORRECTION_CONNECTORS: readonly string[] = Object.freeze([
  '不过呢', '不过', '但是', '但', '可是', '只是', '就是',
  'but', 'however', 'though', 'actually', 'only', 'just',
]);
