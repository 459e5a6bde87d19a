import { describe, expect, it } from 'vitest';
import type { ResponseState, Stage } from '../graph/response-state.js';
import { turnOutcomeLabel } from './turn-metrics.js';

function event(stage: Stage, state: Record<string, unknown> = {}, extra: Partial<ResponseState['metadata']> = {}): ResponseState {
  return { type: stage === 'done' ? 'done' : 'content', content: '', agent_id: 'supervisor', is_thinking: stage !== 'final', session_id: 's', metadata: { stage, seq: 1, state, ...extra } };
}

const final = (tasks: string[], extra: Partial<ResponseState['metadata']> = {}) =>
  event('final', { delta: false, tasks: tasks.map((status, index) => ({ task_id: `t${index}`, agent: 'a', status })) }, extra);

/** The final event with the verify step's verdict in its state. */
const verified = (finalEvent: ResponseState, sufficient: boolean): ResponseState => ({
  ...finalEvent,
  metadata: { ...finalEvent.metadata, state: { ...finalEvent.metadata.state, verification: { sufficient, retried: [], judged: false } } },
});

describe('turnOutcomeLabel', () => {
  it.each<[string, ResponseState[], string]>([
    ['every task completed', [event('agent_done', { status: 'completed' }), final(['completed'])], 'completed'],
    ['every agent failed', [event('agent_failed'), event('agent_failed'), final(['failed', 'failed'])], 'failed'],
    ['a task refused before dispatch, no agent event', [final(['failed'])], 'failed'],
    ['a dependency failed and its dependent was skipped', [event('agent_failed'), final(['failed', 'skipped'])], 'failed'],
    ['one done, one failed', [event('agent_done', { status: 'completed' }), event('agent_failed'), final(['completed', 'failed'])], 'partial'],
    ['a task parked for a missing key', [final(['parked'], { semantic_info: [{ type: 'miss', sub_agent_id: 'a', keys: ['city'], key_descriptions: [''], fe_widgets_suggestion: [''], key_options: [[]] }] })], 'input_required'],
    ['a booking awaiting its confirmation', [final(['awaiting_confirmation'])], 'input_required'],
    ['an agent answered input_required', [event('agent_done', { status: 'input_required' }), final(['input_required'])], 'input_required'],
    ['a failed agent beside a question', [event('agent_failed'), final(['failed', 'parked'])], 'partial'],
    ['escalated', [event('escalate'), final([])], 'escalated'],
    ['completed, but the verify step found the results insufficient', [event('agent_done', { status: 'completed' }), verified(final(['completed']), false)], 'unresolved'],
    ['one done, one failed, verify insufficient', [event('agent_failed'), verified(final(['completed', 'failed']), false)], 'unresolved'],
    ['every agent failed, verify insufficient', [event('agent_failed'), verified(final(['failed']), false)], 'failed'],
    ['completed and verified sufficient', [event('agent_done', { status: 'completed' }), verified(final(['completed']), true)], 'completed'],
  ])('%s → %s', (_name, events, label) => {
    expect(turnOutcomeLabel('completed', events)).toBe(label);
  });

  it('keeps the lifecycle outcome of a turn that did not run to its end', () => {
    expect(turnOutcomeLabel('cancelled', [event('agent_failed')])).toBe('cancelled');
    expect(turnOutcomeLabel('error', [])).toBe('error');
  });

  it('reads agent events when the final event lists no tasks', () => {
    expect(turnOutcomeLabel('completed', [event('agent_failed'), event('final', { delta: false })])).toBe('failed');
  });
});
