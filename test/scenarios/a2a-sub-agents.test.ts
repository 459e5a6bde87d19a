/**
 * A2A agents as sub-agents of a whole Switchboard: real peers built with
 * `@a2a-js/sdk` 1.x and 0.3, registered by endpoint (`protocol: a2a`) and by
 * card (`a2a_card`), routed to by the offline matcher from what their cards
 * say, and picked up by a hot reload. An unreachable card fails its agent only.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aPeer, startLegacyA2aPeer, type A2aPeer } from '../support/a2a-peers.js';
import { finalEvent, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';
import type { PublicAgentCard } from '../../src/registry/types.js';

let weather: A2aPeer;
let news: A2aPeer;
let legacy: A2aPeer;
let board: TestSwitchboard;
/** A port nothing listens on any more. */
let closedUrl: string;

const cityKey = `    required_semantic_keys:
      - key: city
        description: { zh: 城市, en: city }
        extract: { enum: [Paris, London] }
`;

function registry(extra = ''): string {
  return `version: 1
supervisor:
  answer_cache_ttl_s: 0
agents:
  - id: weather_agent
    a2a_card: ${weather.cardUrl}
${cityKey}  - id: news_agent
    name: News
    description: The news headlines of the day
    keywords: [news, headlines]
    examples: [show me the news headlines]
    endpoint:
      url: ${news.url}
      protocol: a2a
      timeout_ms: 5000
  - id: ghost_agent
    a2a_card: ${closedUrl}/.well-known/agent-card.json
${extra}`;
}

beforeAll(async () => {
  const gone = await startA2aPeer();
  closedUrl = gone.url;
  await gone.close();
  weather = await startA2aPeer({ streaming: true });
  news = await startA2aPeer({ streaming: false });
  legacy = await startLegacyA2aPeer({
    skill: { name: 'Horoscope', description: 'Reads the daily horoscope', examples: ['what is my horoscope today'], tags: ['horoscope', 'zodiac'] },
    name: 'Horoscope agent',
    description: 'Daily horoscopes',
  });
  board = await startTestSwitchboard({ registryYaml: registry(), a2aCards: { ttlMs: 0, timeoutMs: 2000 } });
});

afterAll(async () => {
  await board.close();
  await Promise.all([weather, news, legacy].map((peer) => peer.close()));
});

async function agentsList(): Promise<PublicAgentCard[]> {
  return ((await (await fetch(`${board.url}/v1/agents`)).json()) as { agents: PublicAgentCard[] }).agents;
}

describe('A2A sub-agents', () => {
  it('builds the capability card from the Agent Card: skills give description, examples and keywords; YAML keys stay', async () => {
    const card = (await agentsList()).find((agent) => agent.id === 'weather_agent')!;
    expect(card).toMatchObject({ name: 'Weather agent', enabled: true, protocol: 'a2a', examples: ['What is the weather in Paris tomorrow?'] });
    expect(card.keywords).toEqual(expect.arrayContaining(['weather', 'forecast']));
    expect(card.description).toContain('Tells the weather forecast of a city');
    expect(card.input_modes).toEqual(['text/plain', 'application/json']);
    expect(card.required_semantic_keys.map((key) => key.key)).toEqual(['city']);
    expect(card.a2a_card).toMatchObject({ url: weather.cardUrl, fetched_at: expect.any(String) });
  });

  it('keeps an agent whose card cannot be fetched, not routable, with the reason; the rest of the registry loads', async () => {
    const ghost = (await agentsList()).find((agent) => agent.id === 'ghost_agent')!;
    expect(ghost.enabled).toBe(false);
    expect(ghost.a2a_card?.error).toMatch(/could not be fetched/);
    expect(ghost.a2a_card?.error).toContain('ECONNREFUSED');
  });

  it('routes to a card-registered v1.0 agent, streams its progress and reads its artifact', async () => {
    const events = await board.chat('What is the weather in Paris tomorrow?', { sessionId: 'a2a-w1' });
    const done = stageEvents(events, 'agent_done').find((event) => event.agent_id === 'weather_agent');
    expect(done?.metadata.state).toMatchObject({ status: 'completed', output: { city: 'Paris', forecast: 'sunny' } });
    expect(stageEvents(events, 'agent_stream').map((event) => event.content)).toContain('Looking up the weather in Paris');
    expect(finalEvent(events).content).toContain('Sunny in Paris');
    expect(weather.received.at(-1)).toMatchObject({ data: { inputs: { city: 'Paris' } }, contextId: 'a2a-w1' });
    expect(weather.received.at(-1)!.headers).toMatchObject({ 'x-switchboard-depth': '1' });
  });

  it('turns an endpoint-registered agent\'s input-required with named keys into semantic_info', async () => {
    const events = await board.chat('show me the news headlines', { sessionId: 'a2a-n1' });
    expect(news.received.length).toBeGreaterThan(0);
    const info = finalEvent(events).metadata.semantic_info ?? [];
    expect(info).toEqual([expect.objectContaining({ sub_agent_id: 'news_agent', keys: ['city'] })]);
  });

  it('picks up a v0.3 agent registered by card on hot reload', async () => {
    expect((await agentsList()).some((agent) => agent.id === 'horoscope_agent')).toBe(false);
    writeFileSync(board.configPath, registry(`  - id: horoscope_agent\n    a2a_card: ${legacy.cardUrl}\n    keywords: [horoscope, zodiac]\n`));
    await expect.poll(async () => (await agentsList()).find((agent) => agent.id === 'horoscope_agent')?.enabled, { timeout: 5000 }).toBe(true);
    const card = (await agentsList()).find((agent) => agent.id === 'horoscope_agent')!;
    expect(card.name).toBe('Horoscope agent');
    expect(card.examples).toEqual(['what is my horoscope today']);
    const events = await board.chat('what is my horoscope today', { sessionId: 'a2a-h1' });
    expect(legacy.received).toHaveLength(1);
    expect(stageEvents(events, 'agent_done').some((event) => event.agent_id === 'horoscope_agent')).toBe(true);
  });
});
