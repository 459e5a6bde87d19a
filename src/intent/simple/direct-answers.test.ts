import { describe, expect, it } from 'vitest';
import { composeDirectAnswer, composeIntentMessage } from './direct-answers.js';
import { snapshotOf, travelCards } from '../../../test/support/registry-fixtures.js';
import { detectLanguage } from '../../text/text-terms.js';

const travel = snapshotOf(travelCards());
const AGENT_ID = /[a-z]+_agent/;

describe('detectLanguage', () => {
  it.each([
    ['帮我订酒店', 'zh'],
    ['book a hotel', 'en'],
    ['book a hotel in 上海', 'en'],
    ['帮我订hotel', 'zh'],
    ['', 'zh'],
    ['12345', 'zh'],
  ])('%j → %s', (text, language) => {
    expect(detectLanguage(text)).toBe(language);
  });
});

describe('composeDirectAnswer', () => {
  it('lists enabled cards by name and description for capability questions, never ids', () => {
    const zh = composeDirectAnswer('capabilities', travel, 'zh', '你能做什么');
    expect(zh).toContain('- 酒店服务：酒店查询与预订');
    expect(zh).toContain('天气查询');
    expect(zh).not.toMatch(AGENT_ID);
    const en = composeDirectAnswer('capabilities', travel, 'en', 'what can you do');
    expect(en).toMatch(/^Here is what I can help with:/);
    expect(en).toContain('- 机票服务: ');
    expect(en).not.toMatch(AGENT_ID);
  });

  it('leaves disabled cards out', () => {
    const cards = travelCards().map((entry) => (entry.id === 'flight_agent' ? { ...entry, enabled: false } : entry));
    expect(composeDirectAnswer('capabilities', snapshotOf(cards), 'zh', '你能做什么')).not.toContain('机票服务');
  });

  it.each([
    ['greeting', '你好', /^您好！/],
    ['greeting', 'hello', /^Hello!/],
    ['thanks', '谢谢', /不客气/],
    ['thanks', '再见', /再见/],
    ['thanks', 'bye', /Goodbye/],
    ['out_of_scope', '今天股票怎么样', /超出.*酒店服务、机场接送机服务、机票服务、天气查询/],
    ['out_of_scope', 'write me a poem', /outside what I can help with.*酒店服务/],
    ['sensitive', '毒品', /无法提供帮助/],
    ['abusive', 'idiot', /respectful/],
    ['escalate', '转人工', /人工客服/],
  ] as const)('%s for %j', (kind, query, pattern) => {
    const answer = composeDirectAnswer(kind, travel, detectLanguage(query), query);
    expect(answer).toMatch(pattern);
    expect(answer).not.toMatch(AGENT_ID);
  });

  it('copes with no enabled agents', () => {
    expect(composeDirectAnswer('capabilities', snapshotOf([]), 'zh', '你能做什么')).toContain('没有可用的服务');
    expect(composeDirectAnswer('out_of_scope', snapshotOf([]), 'en', 'poem')).toContain('no services');
  });
});

describe('composeIntentMessage', () => {
  it('names the cards in the turn language', () => {
    const [hotel, limo] = travelCards();
    expect(composeIntentMessage([hotel!, limo!], 'zh')).toBe('明白了！我将为您处理：酒店服务、机场接送机服务。');
    expect(composeIntentMessage([hotel!], 'en')).toBe("Got it! I'll take care of: 酒店服务.");
    expect(composeIntentMessage([], 'zh')).toBe('明白了！正在为您处理。');
  });
});
