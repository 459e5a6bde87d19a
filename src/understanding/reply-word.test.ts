import { describe, expect, it } from 'vitest';
import { classifyReplyWord } from './reply-word.js';

describe('classifyReplyWord', () => {
  it('recognises yes, no and cancel words of the contract', () => {
    for (const word of ['确认', '好的', '是的', 'yes', 'confirm', 'Yes!', '  确认。', '好的吧', 'OK']) expect(classifyReplyWord(word)).toBe('yes');
    for (const word of ['不', 'no', 'No.', '不要']) expect(classifyReplyWord(word)).toBe('no');
    for (const word of ['取消', '算了', '不用了', 'cancel', 'never mind', 'Stop!', '算了吧']) expect(classifyReplyWord(word)).toBe('cancel');
  });

  it('recognises the everyday ways of saying that what was shown is right, or not wanted', () => {
    for (const word of ['没错', '是的，没错', '确认无误', '正确', '嗯', '可以的', 'correct', "that's right", "that's correct", 'yes, that is correct', 'sounds good']) expect(classifyReplyWord(word)).toBe('yes');
    for (const word of ['不需要', '不用了，谢谢', 'nah', 'no thanks']) expect(['no', 'cancel']).toContain(classifyReplyWord(word));
  });

  it('recognises everyday ways of calling the whole thing off as cancel', () => {
    for (const word of ['不办了', '先不办了', '不必了', '撤销', '全部取消', '算了，不要了', 'forget about it', "don't bother", 'no need', 'cancel that', 'cancel everything']) {
      expect(classifyReplyWord(word)).toBe('cancel');
    }
  });

  it('ignores messages that say more than that', () => {
    for (const text of ['好的，帮我再订一间', 'yes please book two rooms', '取消明天的酒店', '不是北京是上海', '', 'stop the car at the hotel']) {
      expect(classifyReplyWord(text)).toBeNull();
    }
  });
});
