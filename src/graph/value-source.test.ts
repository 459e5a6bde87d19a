import { describe, expect, it } from 'vitest';
import { ecommerceCards, travelCards } from '../../test/support/registry-fixtures.js';
import { sendableInputs, sessionEvidence, sourceTaskInputs, spanOf } from './value-source.js';
import { readMessage } from '../understanding/index.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const hotel = travelCards().find((card) => card.id === 'hotel_agent')!;
const order = ecommerceCards().find((card) => card.id === 'order_agent')!;

function evidence(query: string, history: string[] = [], extra: Partial<Parameters<typeof sessionEvidence>[0]> = {}) {
  return sessionEvidence({ message: readMessage(query), history: history.map((text) => ({ query: text })), foldedTurns: 0, pending: [], knownValues: {}, profile: [], now: NOW, ...extra });
}

describe('value sources', () => {
  it('places a value in the user text of the turn that said it, with its span', () => {
    const { task } = sourceTaskInputs({ task_id: 't1', inputs: { city: '上海' } }, hotel, evidence('改成上海', ['帮我订北京的酒店']));
    expect(task.sources).toEqual({ city: { kind: 'user', turn: 2, start: 2, end: 4 } });
  });

  it('reads dates and numbers the way the key reads them', () => {
    expect(spanOf('明天入住', '2026-11-23', { type: 'date' }, NOW)).toEqual({ start: 0, end: 2 });
    expect(spanOf('住三晚', 3, { type: 'number' }, NOW)).toBeDefined();
  });

  it('drops a value nobody said (the model’s rewrite is not evidence) and records nothing for it', () => {
    const { task, dropped } = sourceTaskInputs({ task_id: 't1', inputs: { order_id: 'Z9999' } }, order, evidence('帮我查一下订单的状态'));
    expect(dropped).toEqual(['order_id']);
    expect(task.inputs).toEqual({});
  });

  it('keeps a value whose source was recorded when it was kept, and a profile value shown this turn', () => {
    const kept = evidence('查物流', [], { knownValues: { order_id: 'B2002' }, knownSources: { order_id: { kind: 'user', turn: 1, start: 2, end: 7 } } });
    expect(sourceTaskInputs({ task_id: 't1', inputs: { order_id: 'B2002' } }, order, kept).task.sources.order_id).toEqual({ kind: 'user', turn: 1, start: 2, end: 7 });
    const fromProfile = evidence('订酒店', [], { profile: [{ task_id: 't1', key: 'city', value: '上海' }] });
    expect(sourceTaskInputs({ task_id: 't1', inputs: { city: '上海' } }, hotel, fromProfile).task.sources.city).toEqual({ kind: 'profile', key: 'city' });
    // Slot memory without a recorded source is no evidence.
    const unsourced = evidence('查物流', [], { knownValues: { order_id: 'B2002' } });
    expect(sourceTaskInputs({ task_id: 't1', inputs: { order_id: 'B2002' } }, order, unsourced).dropped).toEqual(['order_id']);
  });

  it('lets the dispatcher send only inputs whose every value has a source', () => {
    expect(sendableInputs({ inputs: { city: '上海' } })).toEqual({ unsourced: ['city'] });
    expect(sendableInputs({ inputs: { city: '上海' }, sources: { city: { kind: 'user', turn: 1, start: 0, end: 2 } } })).toEqual({ inputs: { city: '上海' } });
  });
});
