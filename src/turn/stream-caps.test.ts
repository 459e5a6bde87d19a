import { describe, expect, it } from 'vitest';
import { createStreamGovernor, type StreamCapName } from './stream-caps.js';

describe('createStreamGovernor', () => {
  it('relays progress up to the per-turn event cap, over all agents, then drops it', () => {
    const drops: [StreamCapName, string, boolean][] = [];
    const governor = createStreamGovernor({ maxEventsPerTurn: 3, maxBytesPerAgent: 1000 }, (cap, agent, first) => drops.push([cap, agent, first]));
    expect(['a', 'b', 'a'].map((agent) => governor.admit(agent, 'tick'))).toEqual([true, true, true]);
    expect(governor.admit('b', 'tick')).toBe(false);
    expect(governor.admit('c', 'tick')).toBe(false);
    expect(governor.dropped()).toEqual({ events_per_turn: 2, agent_stream_bytes: 0 });
    expect(drops).toEqual([
      ['events_per_turn', 'b', true],
      ['events_per_turn', 'c', false],
    ]);
  });

  it('counts bytes per agent in UTF-8 and drops an event that would pass the cap, whole', () => {
    const governor = createStreamGovernor({ maxEventsPerTurn: 100, maxBytesPerAgent: 10 });
    expect(governor.admit('a', '天气')).toBe(true); // 6 bytes
    expect(governor.admit('a', '晴天')).toBe(false); // 6 more would make 12
    expect(governor.admit('a', 'ok')).toBe(true); // 8
    // Another agent has its own share.
    expect(governor.admit('b', '1234567890')).toBe(true);
    expect(governor.admit('b', 'x')).toBe(false);
    expect(governor.dropped()).toEqual({ events_per_turn: 0, agent_stream_bytes: 2 });
  });

  it('does not count a dropped event against the event cap', () => {
    const governor = createStreamGovernor({ maxEventsPerTurn: 2, maxBytesPerAgent: 4 });
    expect(governor.admit('a', 'xxxxx')).toBe(false);
    expect(governor.admit('a', 'xx')).toBe(true);
    expect(governor.admit('b', 'xx')).toBe(true);
    expect(governor.dropped()).toEqual({ events_per_turn: 0, agent_stream_bytes: 1 });
  });
});
