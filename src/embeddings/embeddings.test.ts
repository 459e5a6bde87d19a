import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { loadRegistryFile } from '../registry/index.js';
import type { RegistrySnapshot } from '../registry/types.js';
import { createMemoryKeyValueStore } from '../store/kv-store.js';
import { createOfflineRecognizer } from '../intent/offline-recognizer.js';
import { createExampleRanker } from '../intent/routing/example-ranker.js';
import { readTurnQuery } from '../understanding/index.js';
import { createEmbeddingsClient } from './embeddings-client.js';
import { createEmbeddingsFromEnv } from './from-env.js';
import { createSemanticIndex } from './semantic-index.js';
import { createTurnMeaning } from './turn-meaning.js';
import { startFakeEmbeddings, type FakeEmbeddingsServer } from '../../test/support/fake-embeddings.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let fake: FakeEmbeddingsServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('embeddings client', () => {
  it('batches texts, and embeds a text once: the in-memory LRU answers the second time', async () => {
    fake = await startFakeEmbeddings();
    const client = createEmbeddingsClient({ baseUrl: fake.baseUrl, model: 'm', apiKey: 'k', batchSize: 2, logger: silentLogger });
    const vectors = await client.embed(['rain', 'hotel', 'flight', 'rain', 'taxi'].map((text) => ({ text })));
    expect(vectors).toHaveLength(5);
    // Four distinct texts in batches of two.
    expect(fake.requests.map((request) => request.input.length)).toEqual([2, 2]);
    expect(fake.requests[0]!.authorization).toBe('Bearer k');
    expect(vectors![0]).toEqual(vectors![3]);
    await client.embed([{ text: 'hotel' }]);
    expect(fake.requests).toHaveLength(2);
    expect(client.stats.cacheHits.memory).toBe(1);
  });

  it('keeps card vectors in the shared store, so another replica embeds nothing; a query never goes there', async () => {
    fake = await startFakeEmbeddings();
    const store = createMemoryKeyValueStore();
    const first = createEmbeddingsClient({ baseUrl: fake.baseUrl, model: 'm', store, logger: silentLogger });
    await first.embed([{ text: 'book a hotel room', shared: true }, { text: 'my secret question' }]);
    expect(store.size).toBe(1);
    const second = createEmbeddingsClient({ baseUrl: fake.baseUrl, model: 'm', store, logger: silentLogger });
    const requestsBefore = fake.requests.length;
    await second.embed([{ text: 'book a hotel room', shared: true }]);
    expect(fake.requests.length).toBe(requestsBefore);
    expect(second.stats.cacheHits.store).toBe(1);
    // Another model is another vector: nothing cached for it.
    const other = createEmbeddingsClient({ baseUrl: fake.baseUrl, model: 'other', store, logger: silentLogger });
    await other.embed([{ text: 'book a hotel room', shared: true }]);
    expect(fake.requests.length).toBe(requestsBefore + 1);
  });

  it('resolves undefined when the endpoint fails or hangs, and the breaker stops calling a dead endpoint', async () => {
    fake = await startFakeEmbeddings({ status: 503 });
    const fallbacks: string[] = [];
    const client = createEmbeddingsClient({
      baseUrl: fake.baseUrl,
      model: 'm',
      timeoutMs: 300,
      breaker: { failureThreshold: 3, resetTimeoutMs: 60_000 },
      logger: silentLogger,
      observer: { onFallback: (reason) => fallbacks.push(reason) },
    });
    for (let attempt = 0; attempt < 5; attempt += 1) expect(await client.embed([{ text: `q${attempt}` }])).toBeUndefined();
    expect(fake.requests.length).toBe(3);
    expect(fallbacks.slice(3)).toEqual(['circuit_open', 'circuit_open']);
    expect(client.stats.fallbacks).toBe(5);

    fake.set({ hang: true });
    const slow = createEmbeddingsClient({ baseUrl: fake.baseUrl, model: 'm', timeoutMs: 200, logger: silentLogger });
    const started = Date.now();
    expect(await slow.embed([{ text: 'anything' }])).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('is off unless both EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL are set', () => {
    expect(createEmbeddingsFromEnv({}, silentLogger)).toBeUndefined();
    expect(createEmbeddingsFromEnv({ EMBEDDINGS_BASE_URL: 'http://127.0.0.1:1/v1' }, silentLogger)).toBeUndefined();
    expect(createEmbeddingsFromEnv({ EMBEDDINGS_BASE_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_MODEL: 'm' }, silentLogger)?.client.model).toBe('m');
  });
});

describe('word meaning in offline routing (fake concept-space endpoint)', () => {
  let snapshot: RegistrySnapshot;
  beforeAll(async () => {
    const loaded = await loadRegistryFile(`${ROOT}agents_config.yaml`, { env: {} });
    if (!loaded.ok) throw new Error('sample registry invalid');
    snapshot = loaded.snapshot;
  });
  const recognise = async (recognizer: ReturnType<typeof createOfflineRecognizer>, query: string) => {
    const result = await recognizer.recognize({ ...readTurnQuery(query), history: [], pendingAgents: [], snapshot });
    return result.intents.map((intent) => intent.agentId);
  };

  it('routes a paraphrase that shares no word with the card, which lexical routing leaves with no agent', async () => {
    fake = await startFakeEmbeddings();
    const client = createEmbeddingsClient({ baseUrl: fake.baseUrl, model: 'm', logger: silentLogger });
    const semantic = createSemanticIndex({ client });
    const ranker = createExampleRanker();
    expect(await semantic.prepare(snapshot)).toBe(true);
    const lexical = createOfflineRecognizer({ ranker });
    const withMeaning = createOfflineRecognizer({ ranker, semantic });
    const query = 'should I bring an umbrella to Shanghai tomorrow';
    expect(await recognise(lexical, query)).toEqual([]);
    expect(await recognise(withMeaning, query)).toEqual(['weather_agent']);
    // Keywords still decide; an unrelated question stays out.
    expect(await recognise(withMeaning, '帮我订北京的酒店')).toEqual(['hotel_agent']);
    expect(await recognise(withMeaning, 'who won the football match yesterday')).toEqual([]);
  });

  it('embeds only what changed on reload, and each query once', async () => {
    fake = await startFakeEmbeddings();
    const client = createEmbeddingsClient({ baseUrl: fake.baseUrl, model: 'm', logger: silentLogger });
    const semantic = createSemanticIndex({ client });
    await semantic.prepare(snapshot);
    const texts = fake.requests.flatMap((request) => request.input).length;
    expect(texts).toBeGreaterThan(20);
    const [first, ...rest] = snapshot.enabledAgents;
    const changed = { ...first!, examples: [...first!.examples, 'a brand new example sentence'] };
    const next: RegistrySnapshot = { ...snapshot, enabledAgents: [changed, ...rest], byId: new Map([...snapshot.byId, [changed.id, changed]]) };
    fake.requests.length = 0;
    await semantic.prepare(next);
    expect(fake.requests.flatMap((request) => request.input)).toEqual(['a brand new example sentence']);
    fake.requests.length = 0;
    await semantic.scores('will it snow', next);
    await semantic.scores('will it snow', next);
    expect(fake.requests.flatMap((request) => request.input)).toEqual(['will it snow']);
  });

  it('routes lexically, within the timeout, when the endpoint fails or hangs', async () => {
    fake = await startFakeEmbeddings();
    const client = createEmbeddingsClient({ baseUrl: fake.baseUrl, model: 'm', timeoutMs: 300, logger: silentLogger });
    const semantic = createSemanticIndex({ client, queryTimeoutMs: 300 });
    await semantic.prepare(snapshot);
    const recognizer = createOfflineRecognizer({ semantic });
    fake.set({ hang: true });
    const started = Date.now();
    expect(await recognise(recognizer, '帮我订北京的酒店')).toEqual(['hotel_agent']);
    expect(Date.now() - started).toBeLessThan(2000);
    fake.set({ status: 500 });
    expect(await recognise(recognizer, 'should I bring an umbrella to Shanghai tomorrow')).toEqual([]);
  });

  it('counts a query read before the cards have vectors as a not_ready fallback, once per turn', async () => {
    fake = await startFakeEmbeddings({ status: 500 });
    const reasons: string[] = [];
    const client = createEmbeddingsClient({ baseUrl: fake.baseUrl, model: 'm', logger: silentLogger, breaker: { failureThreshold: 100, resetTimeoutMs: 60_000 } });
    const semantic = createSemanticIndex({ client, onFallback: (reason) => reasons.push(reason) });
    expect(await semantic.prepare(snapshot)).toBe(false);
    fake.set({});
    const meaning = createTurnMeaning(semantic, 'will it snow', snapshot);
    expect(await meaning.read()).toBeUndefined();
    expect(await meaning.read()).toBeUndefined();
    expect(reasons).toEqual(['not_ready']);
  });
});
