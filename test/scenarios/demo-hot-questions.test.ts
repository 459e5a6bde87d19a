/**
 * The demo as shipped (the demo travel agents behind the root registry):
 * the same weather question asked in two sessions is answered from the
 * answer cache the second time (the weather agent has `cache_ttl_s`), and a later session of a user who asked
 * about one city once is offered that city as the usual one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { startDemoSwitchboard, type DemoSwitchboard } from '../support/demo-switchboard.js';
import { stageEvents } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);

const completeFinal = (events: readonly ResponseState[]) => events.find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true)!;

describe('demo: hot questions and the usual city', () => {
  let fleet: DemoSwitchboard;
  beforeAll(async () => {
    fleet = await startDemoSwitchboard({ now: () => NOW });
  });
  afterAll(() => fleet.close());

  it('answers the same weather in a second session from cache and offers the usual city in a new session', async () => {
    const first = await fleet.board.chat('北京明天天气怎么样', { sessionId: 'demo-a', userId: 'traveller' });
    expect(stageEvents(first, 'agent_done')).toHaveLength(1);
    expect(completeFinal(first).metadata.state?.cached).toBeUndefined();

    const second = await fleet.board.chat('北京明天天气怎么样', { sessionId: 'demo-b', userId: 'another-traveller' });
    // No agent is called, yet the client sees the weather agent's reply, marked cached.
    expect(stageEvents(second, 'agent_start')).toHaveLength(1);
    expect(stageEvents(second, 'agent_done')).toEqual([expect.objectContaining({ agent_id: 'weather_agent', metadata: expect.objectContaining({ state: expect.objectContaining({ cached: true }) }) })]);
    expect(completeFinal(second).metadata.state?.cached).toBe(true);
    expect(completeFinal(second).content).toBe(completeFinal(first).content);

    // One question is enough: the same user in a new session is offered the city at once.
    const offered = await fleet.board.chat('后天天气怎么样', { sessionId: 'demo-d', userId: 'traveller' });
    const final = completeFinal(offered);
    expect(final.content.startsWith('已按您常用的查询城市 北京 为您处理，如需更换请告诉我。')).toBe(true);
    expect(final.metadata.state?.profile_filled).toEqual([expect.objectContaining({ key: 'city', value: '北京' })]);
    expect(stageEvents(offered, 'agent_done')).toHaveLength(1);
  });
});
