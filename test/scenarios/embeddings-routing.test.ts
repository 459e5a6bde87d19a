/**
 * The optional embeddings endpoint in a running server (docs/api.md#environment),
 * against the fake concept-space `/v1/embeddings` server (a test double, not a
 * model): a paraphrase that shares no word with any card reaches its agent once
 * the cards are embedded; a paraphrase of a question answered a moment ago
 * (same agent, same values, same qualifiers) is answered from the answer cache,
 * with the one vector of the turn's message, and a question with another value
 * or qualifier never is; when the endpoint fails, turns still run on lexical
 * routing and `/metrics` counts the fallbacks.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDemoSwitchboard, type DemoSwitchboard } from '../support/demo-switchboard.js';
import { startFakeEmbeddings, type FakeEmbeddingsServer } from '../support/fake-embeddings.js';
import { stageEvents } from '../support/switchboard-harness.js';
import type { ResponseState } from '../../src/events/index.js';

let running: DemoSwitchboard;
let fake: FakeEmbeddingsServer;

beforeAll(async () => {
  fake = await startFakeEmbeddings();
  running = await startDemoSwitchboard({ env: { EMBEDDINGS_BASE_URL: fake.baseUrl, EMBEDDINGS_MODEL: 'concepts' } });
});
afterAll(async () => {
  await running?.close();
  await fake?.close();
});

const metrics = async () => (await fetch(`${running.board.url}/metrics`)).text();

it('routes a paraphrase by meaning once the cards are embedded, and embeds each query once', async () => {
  // Cards are embedded in the background at load.
  for (let tries = 0; tries < 50 && !/switchboard_embeddings_calls_total\{outcome="ok"\} [1-9]/.test(await metrics()); tries += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  const before = fake.requests.length;
  const events = await running.board.chat('should I bring an umbrella to Shanghai tomorrow', { sessionId: 'emb-1' });
  expect(stageEvents(events, 'agent_start').map((event) => event.agent_id)).toEqual(['weather_agent']);
  expect(fake.requests.slice(before).flatMap((request) => request.input)).toEqual(['should I bring an umbrella to Shanghai tomorrow']);
  expect(await metrics()).toMatch(/^switchboard_embeddings_duration_seconds_count [1-9]/m);
});

const doneState = (events: readonly ResponseState[]) => events.find((event) => event.metadata.stage === 'done')!.metadata.state!;
const metric = async (line: string) => Number((await metrics()).split('\n').find((entry) => entry.startsWith(line))?.split(' ').pop() ?? 0);

it('answers a paraphrase of a kept question from the answer cache, never a question with another value or qualifier', async () => {
  const asked = await running.board.chat('北京明天天气怎么样', { sessionId: 'emb-cache-1', userId: 'alice' });
  expect(stageEvents(asked, 'agent_start').map((event) => event.agent_id)).toEqual(['weather_agent']);
  expect(doneState(asked).cached).toBeUndefined();

  const before = fake.requests.length;
  const paraphrase = await running.board.chat('北京明天要带伞吗', { sessionId: 'emb-cache-2', userId: 'bob' });
  expect(doneState(paraphrase)).toMatchObject({ outcome: 'completed', cached: true });
  expect(stageEvents(paraphrase, 'agent_done')[0]!.metadata.state).toMatchObject({ cached: true });
  // Routing and the cache look-up read one vector of the message.
  expect(fake.requests.slice(before).flatMap((request) => request.input)).toEqual(['北京明天要带伞吗']);
  expect(await metric('switchboard_cache_hits_total{cache="answer_paraphrase"}')).toBe(1);

  for (const [index, question] of ['上海明天要带伞吗', '北京下个月天气怎么样', '北京明天晚上冷不冷'].entries()) {
    const events = await running.board.chat(question, { sessionId: `emb-cache-${3 + index}`, userId: 'carol' });
    expect(doneState(events).cached, question).toBeUndefined();
  }
  expect(await metric('switchboard_cache_hits_total{cache="answer_paraphrase"}')).toBe(1);
});

it('keeps routing lexically when the endpoint fails, and counts the fallback', async () => {
  fake.set({ status: 500 });
  const events = await running.board.chat('帮我订北京的酒店，明天入住', { sessionId: 'emb-2' });
  expect(stageEvents(events, 'agent_start').map((event) => event.agent_id)).toEqual(['hotel_agent']);
  const text = await metrics();
  expect(text).toMatch(/^switchboard_embeddings_fallbacks_total\{reason="error"\} [1-9]/m);
  expect(text).toMatch(/^switchboard_embeddings_calls_total\{outcome="error"\} [1-9]/m);
});
