import { describe, expect, it } from 'vitest';
import { card, snapshotOf } from '../../test/support/registry-fixtures.js';
import { resolveAgentId } from './resolve-agent-id.js';

describe('resolveAgentId', () => {
  const snapshot = snapshotOf([
    card({ id: 'hotel_agent', name: '酒店服务', description: 'hotels' }),
    card({ id: 'train_agent', name: '火车票', description: 'trains', enabled: false }),
  ]);

  it.each([
    ['the exact id', 'hotel_agent', 'hotel_agent'],
    ['an id with spaces and capitals', ' Hotel_Agent ', 'hotel_agent'],
    ['the display name', '酒店服务', 'hotel_agent'],
    ['a disabled agent', 'train_agent', undefined],
    ['a disabled agent by name', '火车票', undefined],
    ['an unknown name', 'flight_agent', undefined],
  ])('resolves %s', (_label, given, expected) => {
    expect(resolveAgentId(snapshot, given)).toBe(expected);
  });

  it('resolves nothing for a value that is not a string', () => {
    expect(resolveAgentId(snapshot, 42 as unknown as string)).toBeUndefined();
  });
});
