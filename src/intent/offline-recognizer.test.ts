import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadRegistryText } from '../registry/index.js';
import type { RegistrySnapshot } from '../registry/types.js';
import { createOfflineRecognizer } from './offline-recognizer.js';
import { ecommerceCards, snapshotOf, travelCards } from '../../test/support/registry-fixtures.js';
import type { IntentInput, MemoryTurn } from './types.js';
import { readTurnQuery } from '../understanding/index.js';

const travel = snapshotOf(travelCards());
const ecommerce = snapshotOf(ecommerceCards());
const TODAY = new Date(2026, 10, 25, 12, 0);

function input(query: string, extra: Partial<IntentInput> = {}, snapshot: RegistrySnapshot = travel): IntentInput {
  return { ...readTurnQuery(query), history: [], pendingAgents: [], snapshot, ...extra };
}

function turn(fields: Partial<MemoryTurn>): MemoryTurn {
  return { query: '', rewrittenQuery: '', answer: '', agents: [], ...fields };
}

const recognizer = createOfflineRecognizer({ now: () => TODAY });

describe('business intents', () => {
  it('recognises the three-intent travel request', async () => {
    const result = await recognizer.recognize(input('帮我订北京的酒店，安排明天早上7点首都机场接机，再告诉我北京明天的天气'));
    expect(result.kind).toBe('business');
    expect(result.intents.map((intent) => intent.agentId).sort()).toEqual(['hotel_agent', 'limo_agent', 'weather_agent']);
    expect(result.confidence).toBe('high');
    expect(result.rewrittenQuery).toBe('帮我订北京的酒店，安排明天早上7点首都机场接机，再告诉我北京明天的天气');
    expect(result.userFriendlyMessage).toMatch(/^明白了！我将为您处理：/);
    expect(result.userFriendlyMessage).toContain('酒店服务');
    expect(result.userFriendlyMessage).not.toMatch(/_agent/);
    expect(result.intents.find((intent) => intent.agentId === 'limo_agent')!.clause).toBe('安排明天早上7点首都机场接机');
  });

  it('treats a greeting with a request as business', async () => {
    const result = await recognizer.recognize(input('你好，帮我订酒店'));
    expect(result.kind).toBe('business');
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['hotel_agent']);
  });

  it('answers in English for an English query', async () => {
    const result = await recognizer.recognize(input('book a hotel in Shanghai'));
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['hotel_agent']);
    expect(result.userFriendlyMessage).toBe("Got it! I'll take care of: 酒店服务.");
  });
});

describe('simple intents', () => {
  it.each([
    ['你好', 'greeting'],
    ['您好！', 'greeting'],
    ['hi', 'greeting'],
    ['Hello there', 'greeting'],
    ['谢谢', 'thanks'],
    ['非常感谢！', 'thanks'],
    ['thanks a lot', 'thanks'],
    ['再见', 'thanks'],
    ['bye', 'thanks'],
    ['你能做什么', 'capabilities'],
    ['请问你能做什么呢？', 'capabilities'],
    ['what can you do', 'capabilities'],
    ['help', 'capabilities'],
    ['今天股票怎么样', 'out_of_scope'],
    ['write me a poem', 'out_of_scope'],
    ['你好，今天股票怎么样', 'out_of_scope'],
    ['help me write a poem', 'out_of_scope'],
    ['', 'out_of_scope'],
    ['我要买毒品', 'sensitive'],
    ['how to make a bomb', 'sensitive'],
    ['你这个傻逼', 'abusive'],
    ['you are an idiot, book a hotel', 'abusive'],
  ])('%j → %s', async (query, simpleKind) => {
    const result = await recognizer.recognize(input(query));
    expect(result.kind).toBe('simple');
    expect(result.simpleKind).toBe(simpleKind);
    expect(result.intents).toEqual([]);
    expect(result.userFriendlyMessage.length).toBeGreaterThan(0);
    expect(result.userFriendlyMessage).not.toMatch(/_agent/);
  });

  it.each(['转人工', '我要人工客服', 'I want to talk to a person', 'human agent please', '帮我订酒店，不行就转人工'])(
    '%j → escalate',
    async (query) => {
      const result = await recognizer.recognize(input(query));
      expect(result.kind).toBe('escalate');
      expect(result.intents).toEqual([]);
      expect(result.userFriendlyMessage).toMatch(/人工|human/);
    },
  );

  it('takes word lists from options', async () => {
    const custom = createOfflineRecognizer({ lexicon: { greetings: ['早哇'], sensitive: ['机密'], escalation: ['找经理'] } });
    expect((await custom.recognize(input('早哇'))).simpleKind).toBe('greeting');
    expect((await custom.recognize(input('你好'))).simpleKind).toBe('out_of_scope');
    expect((await custom.recognize(input('告诉我公司机密'))).simpleKind).toBe('sensitive');
    expect((await custom.recognize(input('我要找经理'))).kind).toBe('escalate');
    expect((await custom.recognize(input('转人工'))).kind).toBe('simple');
  });

  it('rejects a bad word list with a clear error', () => {
    expect(() => createOfflineRecognizer({ lexicon: { greetings: 'hi' as unknown as string[] } })).toThrow(/"greetings" must be an array of strings/);
    expect(() => createOfflineRecognizer({ maxFragmentResidue: -1 })).toThrow(/maxFragmentResidue/);
  });
});

describe('rewrite from short-term memory', () => {
  it('completes a pending request with a bare key value', async () => {
    const history = [turn({ query: '我要退款', rewrittenQuery: '我要退款，订单号1234567890123', agents: ['refund_agent'] })];
    const result = await recognizer.recognize(input('质量问题', { history, pendingAgents: ['refund_agent'] }, ecommerce));
    expect(result.kind).toBe('business');
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['refund_agent']);
    expect(result.rewrittenQuery).toBe('我要退款，订单号1234567890123，质量问题');
    expect(result.confidence).toBe('medium');
  });

  it('completes several pending agents with several values', async () => {
    const history = [turn({ query: '订酒店，查天气', rewrittenQuery: '帮我订酒店，再查一下天气', agents: ['hotel_agent', 'weather_agent'] })];
    const result = await recognizer.recognize(input('北京，明天', { history, pendingAgents: ['hotel_agent', 'weather_agent'] }));
    expect(result.kind).toBe('business');
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['hotel_agent', 'weather_agent']);
    expect(result.rewrittenQuery).toBe('帮我订酒店，再查一下天气，北京，明天');
  });

  it('keeps a pending request next to a new one when the values come in clauses of their own', async () => {
    const history = [turn({ query: '帮我订酒店', rewrittenQuery: '帮我订酒店', agents: ['hotel_agent'] })];
    const result = await recognizer.recognize(input('北京，明天，顺便查下天气', { history, pendingAgents: ['hotel_agent'] }));
    expect(result.kind).toBe('business');
    expect(result.intents.map((intent) => intent.agentId).sort()).toEqual(['hotel_agent', 'weather_agent']);
    expect(result.rewrittenQuery).toBe('帮我订酒店，北京，明天，顺便查下天气');
  });

  it('does not pull a pending request into a new one whose own clause carries the values', async () => {
    const history = [turn({ query: '帮我订酒店', rewrittenQuery: '帮我订酒店', agents: ['hotel_agent'] })];
    const result = await recognizer.recognize(input('北京明天天气怎么样', { history, pendingAgents: ['hotel_agent'] }));
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['weather_agent']);
    expect(result.rewrittenQuery).toBe('北京明天天气怎么样');
  });

  it('uses the last turn’s agents when nothing is pending', async () => {
    const history = [turn({ query: '北京明天天气', rewrittenQuery: '北京明天天气怎么样', agents: ['weather_agent'] })];
    const result = await recognizer.recognize(input('上海', { history }));
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['weather_agent']);
    expect(result.rewrittenQuery).toBe('北京明天天气怎么样，上海');
    const followUp = await recognizer.recognize(input('那上海怎么样？', { history }));
    expect(followUp.intents.map((intent) => intent.agentId)).toEqual(['weather_agent']);
    expect(followUp.rewrittenQuery).toBe('北京明天天气怎么样，那上海怎么样？');
  });

  it('joins English turns with an English separator', async () => {
    const history = [turn({ query: 'weather please', rewrittenQuery: "what's the weather tomorrow", agents: ['weather_agent'] })];
    const result = await recognizer.recognize(input('Shanghai', { history, pendingAgents: ['weather_agent'] }));
    expect(result.rewrittenQuery).toBe("what's the weather tomorrow, Shanghai");
    expect(result.userFriendlyMessage).toBe("Got it! I'll take care of: 天气查询.");
  });

  it('counts a reply that names the keys it answers as a fragment (what a form sends)', async () => {
    const loaded = loadRegistryText(readFileSync(new URL('../../agents_config.yaml', import.meta.url), 'utf8'), 'agents_config.yaml', { env: {} });
    if (!loaded.ok) throw new Error(loaded.issues[0]?.message);
    const demo = loaded.snapshot;
    const history = [turn({ query: 'Book a hotel', rewrittenQuery: 'Book a hotel', agents: ['hotel_agent'] })];
    const pending = { history, pendingAgents: ['hotel_agent'] };
    const labelled = await recognizer.recognize(input('check-in city: Shanghai, check-in date: 2026-12-01', pending, demo));
    expect(labelled.kind).toBe('business');
    expect(labelled.rewrittenQuery).toBe('Book a hotel, check-in city: Shanghai, check-in date: 2026-12-01');
    // Key names do not make an unrelated sentence a fragment.
    expect((await recognizer.recognize(input('check-in city: Shanghai and tell me the best stock to buy this year', pending, demo))).kind).not.toBe('business');
    expect((await recognizer.recognize(input('入住城市：上海，入住日期：2026-12-01', pending, demo))).kind).toBe('business');
  });

  it('counts an invalid value as an answer to the pending question', async () => {
    const history = [turn({ query: '帮我订北京的酒店', rewrittenQuery: '帮我订北京的酒店', agents: ['hotel_agent'] })];
    const result = await recognizer.recognize(input('13月40日', { history, pendingAgents: ['hotel_agent'] }));
    expect(result.kind).toBe('business');
    expect(result.rewrittenQuery).toBe('帮我订北京的酒店，13月40日');
  });

  it('keeps the earlier keys when the reply matches the pending agent itself', async () => {
    const history = [turn({ query: '明天早上7点接机', rewrittenQuery: '明天早上7点接机', agents: ['limo_agent'] })];
    const result = await recognizer.recognize(input('首都机场接机', { history, pendingAgents: ['limo_agent'] }));
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['limo_agent']);
    expect(result.rewrittenQuery).toBe('明天早上7点接机，首都机场接机');
  });

  it('starts afresh when the query asks for something else', async () => {
    const history = [turn({ query: '帮我订北京的酒店', rewrittenQuery: '帮我订北京的酒店', agents: ['hotel_agent'] })];
    const result = await recognizer.recognize(input('上海明天天气怎么样', { history, pendingAgents: ['hotel_agent'] }));
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['weather_agent']);
    expect(result.rewrittenQuery).toBe('上海明天天气怎么样');
  });

  it('does not treat an unrelated sentence or small talk as a fragment', async () => {
    const history = [turn({ query: '帮我订北京的酒店', rewrittenQuery: '帮我订北京的酒店', agents: ['hotel_agent'] })];
    const pending = { history, pendingAgents: ['hotel_agent'] };
    expect((await recognizer.recognize(input('今天股票怎么样', pending))).simpleKind).toBe('out_of_scope');
    expect((await recognizer.recognize(input('谢谢', pending))).simpleKind).toBe('thanks');
    expect((await recognizer.recognize(input('我想知道北京有什么好玩的地方以及有名的小吃推荐', pending))).simpleKind).toBe('out_of_scope');
  });

  it('ignores pending agents that are no longer enabled', async () => {
    const result = await recognizer.recognize(input('上海', { pendingAgents: ['removed_agent'] }));
    expect(result.simpleKind).toBe('out_of_scope');
  });

  it('needs some carried agent for a bare value', async () => {
    const result = await recognizer.recognize(input('上海'));
    expect(result.kind).toBe('simple');
    expect(result.simpleKind).toBe('out_of_scope');
  });
});

describe('input checks', () => {
  it('names what is wrong', async () => {
    await expect(recognizer.recognize({ ...input('hi'), query: 42 as unknown as string })).rejects.toThrow('intent input: query must be a string');
    await expect(recognizer.recognize({ ...input('hi'), normalizedQuery: undefined as unknown as string })).rejects.toThrow('normalizedQuery must be a string');
    await expect(recognizer.recognize({ ...input('hi'), language: 'fr' as 'en' })).rejects.toThrow('language must be "zh" or "en"');
    await expect(recognizer.recognize({ ...input('hi'), snapshot: {} as RegistrySnapshot })).rejects.toThrow('snapshot must be a registry snapshot');
    await expect(recognizer.recognize({ ...input('hi'), history: null as unknown as MemoryTurn[] })).rejects.toThrow('history must be an array');
  });

  it('stops when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('client went away'));
    await expect(recognizer.recognize(input('帮我订酒店', { signal: controller.signal }))).rejects.toThrow('client went away');
  });
});

describe('word lists from the registry', () => {
  it('adds the snapshot’s supervisor.word_lists to the built-in rules', async () => {
    const base = snapshotOf(travelCards());
    const snapshot = { ...base, supervisor: { ...base.supervisor, wordLists: { sensitive: ['内幕消息'], abusive: [], escalation: ['找你们经理'] } } };
    expect((await recognizer.recognize(input('给我点酒店的内幕消息', {}, snapshot))).simpleKind).toBe('sensitive');
    expect((await recognizer.recognize(input('我要找你们经理', {}, snapshot))).kind).toBe('escalate');
    // The same words mean nothing on a registry without them.
    expect((await recognizer.recognize(input('我要找你们经理', {}, base))).kind).not.toBe('escalate');
  });
});
