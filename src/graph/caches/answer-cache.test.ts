import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../logger.js';
import { loadRegistryText } from '../../registry/load-registry.js';
import type { RegistrySnapshot } from '../../registry/types.js';
import { createMemoryKeyValueStore } from '../../store/index.js';
import { answerCacheKey, answerMayBeKept, createAnswerCache, type AnswerCacheRequest } from './answer-cache.js';
import type { SubTask } from '../../planning/plan-types.js';
import { loadRegistryFile } from '../../registry/index.js';
import { cosine, createEmbeddingsClient } from '../../embeddings/embeddings-client.js';
import { createSemanticIndex, type SemanticIndex } from '../../embeddings/semantic-index.js';
import { splitQualifiers } from './cache-scope.js';
import { startFakeEmbeddings, type FakeEmbeddingsServer } from '../../../test/support/fake-embeddings.js';

const REGISTRY = `version: 1
supervisor:
  answer_cache_ttl_s: 60
  pii_patterns: [{ name: member_no, pattern: "M[0-9]{8}" }]
agents:
  - id: weather_agent
    name: 天气查询
    description: 天气
    cache_ttl_s: 120
    endpoint: { url: http://127.0.0.1:7104/invoke }
    required_semantic_keys:
      - { key: city, description: 城市, extract: { enum: [北京, 上海] } }
    input_schema: { type: object, properties: { city: { type: string }, date: { type: string, format: date } } }
  - id: order_agent
    name: 订单
    description: 订单查询
    cache_ttl_s: 30
    endpoint: { url: http://127.0.0.1:7105/invoke }
    required_semantic_keys:
      - { key: order_id, description: 订单号, extract: { pattern: "A[0-9]{4}" } }
  - id: faq_agent
    name: 常见问题
    description: 常见问题
    cache_ttl_s: 600
    endpoint: { url: http://127.0.0.1:7106/invoke }
  - id: news_agent
    name: 新闻
    description: 新闻
    endpoint: { url: http://127.0.0.1:7108/invoke }
  - id: refund_agent
    name: 退款
    description: 退款
    side_effects: true
    endpoint: { url: http://127.0.0.1:7107/invoke }
`;

function snapshot(yaml = REGISTRY): RegistrySnapshot {
  const result = loadRegistryText(yaml, 'f.yaml', { env: {} });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.snapshot;
}

function task(id: string, agent: string, inputs: Record<string, unknown>, overrides: Partial<SubTask> = {}): SubTask {
  return { task_id: id, description: `ask ${agent}`, assigned_agent: agent, inputs, dependencies: [], status: 'pending', ...overrides };
}

const LIVE = snapshot();

function request(tasks: SubTask[], overrides: Partial<AnswerCacheRequest> = {}): AnswerCacheRequest {
  return {
    snapshot: LIVE,
    owner: 'u1',
    language: 'zh',
    plan: { plan_id: 'p', task_type: 'parallel', sub_tasks: tasks, reasoning: '', total_tasks: tasks.length, missing_semantic_keys: [], user_friendly_message: '' },
    rewrittenQuery: '北京明天天气怎么样',
    texts: ['北京明天天气怎么样'],
    profileFilled: false,
    question: overrides.texts?.[0] ?? '北京明天天气怎么样',
    today: new Date(2026, 10, 22),
    ...overrides,
  };
}

const WEATHER = { city: '北京', date: '2026-11-23' };

describe('answer cache keys', () => {
  it('never conflates questions that differ in a qualifier the extractor did not capture ("广州下个月天气怎么样" is not "广州天气如何")', () => {
    const city = { city: '北京' };
    const keyOf = (question: string) => answerCacheKey(request([task('t1', 'weather_agent', city, { description: question })], { texts: [question] }))!.key;
    const plain = keyOf('北京天气如何');
    expect(keyOf('北京下个月天气怎么样')).not.toBe(plain);
    expect(keyOf('北京这周末会下雨吗')).not.toBe(plain);
    expect(keyOf('what is the weather in 北京 next month')).not.toBe(plain);
    expect(keyOf('北京天气怎么样？')).toBe(plain);
  });

  it('keys a read-only plan on what it resolved to: task ids, order and wording do not matter', () => {
    const first = answerCacheKey(request([task('t1', 'weather_agent', WEATHER)]))!;
    expect(first.scope).toBe('shared');
    expect(first.ttlMs).toBe(60_000);
    const again = answerCacheKey(
      request([task('other_id', 'weather_agent', { date: '2026-11-23', city: '北京' }, { description: '明天北京的天气如何？' })], { owner: 'u2', texts: ['明天北京的天气如何？'] }),
    )!;
    expect(again.key).toBe(first.key);
    expect(again.taskKeys.other_id).toBe(first.taskKeys.t1);
    expect(answerCacheKey(request([task('t1', 'weather_agent', { ...WEATHER, city: '上海' })]))!.key).not.toBe(first.key);
    expect(answerCacheKey(request([task('t1', 'weather_agent', WEATHER)], { language: 'en' }))!.key).not.toBe(first.key);
    // Another tenant never reads this tenant's entries, shared ones included.
    expect(answerCacheKey(request([task('t1', 'weather_agent', WEATHER)], { owner: 'acme/u1' }))!.key).not.toBe(first.key);
    expect(answerCacheKey(request([task('t1', 'weather_agent', WEATHER)], { owner: 'acme/u2' }))!.key).toBe(answerCacheKey(request([task('t1', 'weather_agent', WEATHER)], { owner: 'acme/u1' }))!.key);
    const edited = snapshot(REGISTRY.replace('description: 天气\n', 'description: 天气预报\n'));
    expect(answerCacheKey(request([task('t1', 'weather_agent', WEATHER)], { snapshot: edited }))!.key).not.toBe(first.key);
  });

  it('keeps the entry per user for profile-filled keys, personal inputs, input-less tasks and personal data in the text', () => {
    const shared = answerCacheKey(request([task('t1', 'weather_agent', WEATHER)]))!;
    const cases: AnswerCacheRequest[] = [
      request([task('t1', 'weather_agent', WEATHER)], { profileFilled: true }),
      request([task('t1', 'order_agent', { order_id: 'A1001' })]),
      request([task('t1', 'faq_agent', {})]),
      request([task('t1', 'weather_agent', WEATHER)], { texts: ['北京明天天气怎么样，我的手机13812345678'] }),
      request([task('t1', 'weather_agent', WEATHER)], { texts: ['会员 M12345678 北京明天天气'] }),
    ];
    for (const item of cases) {
      const key = answerCacheKey(item)!;
      expect(key.scope).toBe('user');
      expect(answerCacheKey({ ...item, owner: 'u2' })!.key).not.toBe(key.key);
      expect(key.key).not.toBe(shared.key);
    }
  });

  it('keys an input-less task on its normalised message', () => {
    const base = answerCacheKey(request([task('t1', 'faq_agent', {}, { description: 'How do I return an item?' })]))!;
    expect(answerCacheKey(request([task('t1', 'faq_agent', {}, { description: ' how  do I return an item ? ' })]))!.key).toBe(base.key);
    expect(answerCacheKey(request([task('t1', 'faq_agent', {}, { description: 'How do I pay?' })]))!.key).not.toBe(base.key);
  });

  it('lives answer_cache_ttl_s or the shortest cache_ttl_s of the plan\'s agents, whichever is less', () => {
    expect(answerCacheKey(request([task('t1', 'weather_agent', WEATHER)]))!.ttlMs).toBe(60_000);
    expect(answerCacheKey(request([task('t1', 'order_agent', { order_id: 'A1001' })]))!.ttlMs).toBe(30_000);
    expect(answerCacheKey(request([task('t1', 'weather_agent', WEATHER), task('t2', 'order_agent', { order_id: 'A1001' })]))!.ttlMs).toBe(30_000);
    const long = snapshot(REGISTRY.replace('answer_cache_ttl_s: 60', 'answer_cache_ttl_s: 900'));
    expect(answerCacheKey(request([task('t1', 'weather_agent', WEATHER)], { snapshot: long }))!.ttlMs).toBe(120_000);
    expect(answerCacheKey(request([task('t1', 'faq_agent', {})], { snapshot: long }))!.ttlMs).toBe(600_000);
  });

  it('never keys a plan with an agent that did not opt in to caching (no cache_ttl_s)', () => {
    expect(answerCacheKey(request([task('t1', 'news_agent', { topic: 'x' })]))).toBeUndefined();
    expect(answerCacheKey(request([task('t1', 'weather_agent', WEATHER), task('t2', 'news_agent', { topic: 'x' })]))).toBeUndefined();
  });

  it('never keys a plan with a side effect, a parked or held task, an unknown agent, or with the cache off', () => {
    expect(answerCacheKey(request([task('t1', 'weather_agent', WEATHER), task('t2', 'refund_agent', { order_id: 'A1001' })]))).toBeUndefined();
    expect(answerCacheKey(request([task('t1', 'weather_agent', {}, { status: 'parked' })]))).toBeUndefined();
    expect(answerCacheKey(request([task('t1', 'weather_agent', WEATHER, { status: 'awaiting_confirmation' })]))).toBeUndefined();
    expect(answerCacheKey(request([task('t1', 'gone_agent', WEATHER)]))).toBeUndefined();
    expect(answerCacheKey(request([]))).toBeUndefined();
    const off = snapshot(REGISTRY.replace('answer_cache_ttl_s: 60', 'answer_cache_ttl_s: 0'));
    expect(answerCacheKey(request([task('t1', 'weather_agent', WEATHER)], { snapshot: off }))).toBeUndefined();
  });
});

describe('answer cache store', () => {
  it('returns a kept answer for its TTL, counts hits and misses, and reads a store failure as a miss', async () => {
    let clock = 1_000;
    const lookups: boolean[] = [];
    const cache = createAnswerCache({ store: createMemoryKeyValueStore({ now: () => clock }), logger: silentLogger, onLookup: (hit) => lookups.push(hit) });
    const key = answerCacheKey(request([task('t1', 'weather_agent', WEATHER)]))!;
    expect(await cache.lookup(key)).toBeUndefined();
    await cache.remember(key, { answer: '北京明天晴。', tasks: [{ key: key.taskKeys.t1!, agent_id: 'weather_agent', output: { city: '北京' } }] });
    expect(await cache.lookup(key)).toMatchObject({ answer: '北京明天晴。', tasks: [{ agent_id: 'weather_agent', output: { city: '北京' } }] });
    clock += 60_001;
    expect(await cache.lookup(key)).toBeUndefined();
    expect(lookups).toEqual([false, true, false]);

    const broken = createAnswerCache({
      store: { get: () => Promise.reject(new Error('down')), set: () => Promise.reject(new Error('down')), setIfAbsent: async () => false, delete: async () => {} },
      logger: silentLogger,
    });
    await expect(broken.remember(key, { answer: 'x', tasks: [] })).resolves.toBeUndefined();
    expect(await broken.lookup(key)).toBeUndefined();
  });
});

describe('answers with personal data', () => {
  it('are not kept: the store is a database like any other', () => {
    expect(answerMayBeKept(LIVE, { answer: '北京明天晴。', tasks: [{ key: 'k', agent_id: 'weather_agent', output: { city: '北京' } }] })).toBe(true);
    expect(answerMayBeKept(LIVE, { answer: '已联系 13812345678。', tasks: [] })).toBe(false);
    expect(answerMayBeKept(LIVE, { answer: 'ok', tasks: [{ key: 'k', agent_id: 'order_agent', output: { email: 'a.b@example.com' } }] })).toBe(false);
    expect(answerMayBeKept(LIVE, { answer: 'ok', tasks: [{ key: 'k', agent_id: 'order_agent', message: '会员 M12345678' }] })).toBe(false);
  });
});

describe('paraphrases of a kept question (fake concept-space embeddings endpoint, a test double)', () => {
  let sample: RegistrySnapshot;
  let fake: FakeEmbeddingsServer;
  let semantic: SemanticIndex;
  beforeAll(async () => {
    const loaded = await loadRegistryFile(fileURLToPath(new URL('../../../agents_config.yaml', import.meta.url)), { env: {} });
    if (!loaded.ok) throw new Error('sample registry invalid');
    sample = loaded.snapshot;
    fake = await startFakeEmbeddings();
    semantic = createSemanticIndex({ client: createEmbeddingsClient({ baseUrl: fake.baseUrl, model: 'concepts', logger: silentLogger }) });
    expect(await semantic.prepare(sample)).toBe(true);
  });
  afterAll(async () => {
    await fake?.close();
  });

  const TOMORROW = { city: '北京', date: '2026-11-23' };
  const keyFor = (question: string, inputs: Record<string, unknown> = TOMORROW, overrides: Partial<AnswerCacheRequest> = {}) =>
    answerCacheKey(request([task('t1', 'weather_agent', inputs, { description: question })], { snapshot: sample, texts: [question], question, rewrittenQuery: question, ...overrides }))!;
  const meaningOf = async (question: string) => (await semantic.read(question, sample))!;
  const answer = (key: ReturnType<typeof keyFor>) => ({ answer: '北京明天晴，8 到 -2 度。', tasks: [{ key: key.taskKeys.t1!, agent_id: 'weather_agent', output: { city: '北京' } }] });

  it('tells the words that restate a request from those that qualify it', () => {
    const weather = sample.byId.get('weather_agent')!;
    const values = new Set(['北京', '上海', 'beijing', 'shanghai']);
    // "要带伞" is how an example of the card asks ("去西安要带伞吗"); the rest names when, which or how much.
    expect(splitQualifiers('要带伞', [weather], values)).toEqual({ qualifiers: [], restating: ['要带伞'] });
    for (const term of ['下个月', '这周末', 'month', 'next', '3', 'date:2026-12-01', '上海', '晚上冷不冷', '多少度']) {
      expect(splitQualifiers(term, [weather], values)).toEqual({ qualifiers: [term], restating: [] });
    }
    // A word no example of the card uses qualifies too: it may be a value the extractor did not read.
    expect(splitQualifiers('苏州', [weather], values).qualifiers).toEqual(['苏州']);
  });

  it('answers a paraphrase from the kept answer: same agent, same values, same qualifiers, close in meaning', async () => {
    const paraphrases: boolean[] = [];
    const lookups: boolean[] = [];
    const store = createMemoryKeyValueStore();
    const cache = createAnswerCache({ store, logger: silentLogger, onLookup: (hit) => lookups.push(hit), onParaphraseLookup: (hit) => paraphrases.push(hit) });
    const asked = '北京明天天气怎么样';
    const kept = keyFor(asked);
    await cache.remember(kept, answer(kept), await meaningOf(asked));

    const paraphrase = '北京明天要带伞吗';
    const key = keyFor(paraphrase);
    expect(key.key).not.toBe(kept.key);
    expect(key.family).toBe(kept.family);
    // Without a vector (no embeddings endpoint) nothing changes: the lexical key misses.
    expect(await cache.lookup(key)).toBeUndefined();
    const hit = await cache.lookup(key, () => meaningOf(paraphrase));
    expect(hit).toMatchObject({ answer: '北京明天晴，8 到 -2 度。', matched: 'paraphrase', tasks: [{ key: key.taskKeys.t1, agent_id: 'weather_agent' }] });
    expect(await cache.lookup(kept, () => Promise.reject(new Error('not read on an exact hit')))).toMatchObject({ matched: 'exact' });
    expect(lookups).toEqual([false, true, true]);
    expect(paraphrases).toEqual([true]);
    // Only the answer is in the store, under its exact key: no vector of the user's words.
    expect(store.size).toBe(1);
    expect(JSON.stringify(await store.get(kept.key))).not.toMatch(/\d\.\d{6}/);
  });

  it('never answers a different value or qualifier, however close the meaning', async () => {
    const cache = createAnswerCache({ store: createMemoryKeyValueStore(), logger: silentLogger });
    const asked = '北京明天天气怎么样';
    const kept = keyFor(asked);
    await cache.remember(kept, answer(kept), await meaningOf(asked));
    const misses: [string, Record<string, unknown>][] = [
      ['上海明天要带伞吗', { city: '上海', date: '2026-11-23' }],
      ['北京后天要带伞吗', { city: '北京', date: '2026-11-24' }],
      ['北京下个月天气怎么样', TOMORROW],
      ['北京明天晚上冷不冷', TOMORROW],
      ['北京明天3点天气', TOMORROW],
    ];
    for (const [question, inputs] of misses) {
      const meaning = await meaningOf(question);
      expect(await cache.lookup(keyFor(question, inputs), async () => meaning), question).toBeUndefined();
    }
    // "下个月" is as close in meaning as a paraphrase here: it is the qualifier, not the cosine, that keeps it apart.
    const nextMonth = await meaningOf('北京下个月天气怎么样');
    expect(cosine(nextMonth.vector, (await meaningOf(asked)).vector)).toBeGreaterThanOrEqual(nextMonth.paraphrase);
    // Another language, another tenant, another registry version: other families.
    expect(keyFor('北京明天要带伞吗', TOMORROW, { language: 'en' }).family).not.toBe(kept.family);
    expect(keyFor('北京明天要带伞吗', TOMORROW, { owner: 'acme/u1' }).family).not.toBe(kept.family);
    // A task without inputs is keyed on its wording: no paraphrase look-up.
    expect(answerCacheKey(request([task('t1', 'faq_agent', {})]))!.family).toBeUndefined();
  });

  it('misses a question far in meaning, and an entry past its time to live', async () => {
    let clock = 1_000;
    const cache = createAnswerCache({ store: createMemoryKeyValueStore({ now: () => clock }), logger: silentLogger, now: () => new Date(clock) });
    const asked = '北京明天天气怎么样';
    const kept = keyFor(asked);
    await cache.remember(kept, answer(kept), await meaningOf(asked));
    // Same family (the restating words differ), but not the same question in meaning.
    const question = '北京明天空气质量怎么样';
    expect(keyFor(question).family).toBe(kept.family);
    expect(await cache.lookup(keyFor(question), () => meaningOf(question))).toBeUndefined();
    expect(await cache.lookup(keyFor('北京明天要带伞吗'), () => meaningOf('北京明天要带伞吗'))).toMatchObject({ matched: 'paraphrase' });
    clock += kept.ttlMs + 1;
    expect(await cache.lookup(keyFor('北京明天要带伞吗'), () => meaningOf('北京明天要带伞吗'))).toBeUndefined();
  });
});
