import { describe, expect, it } from 'vitest';
import type { ResponseState, Stage } from '../events/index.js';
import { decideTurnOutcome, TURN_OUTCOMES } from './turn-outcome.js';
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

describe('decideTurnOutcome', () => {
  it.each<[string, ResponseState[], string]>([
    ['every task completed', [event('agent_done', { status: 'completed' }), final(['completed'])], 'completed'],
    ['every agent failed', [event('agent_failed'), event('agent_failed'), final(['failed', 'failed'])], 'failed'],
    ['a task refused before dispatch, no agent event', [final(['failed'])], 'failed'],
    ['a dependency failed and its dependent was skipped', [event('agent_failed'), final(['failed', 'skipped'])], 'failed'],
    ['one done, one failed', [event('agent_done', { status: 'completed' }), event('agent_failed'), final(['completed', 'failed'])], 'partial'],
    ['a task parked for a missing key', [final(['parked'], { semantic_info: [{ type: 'miss', sub_agent_id: 'a', keys: ['city'], key_descriptions: [''], fe_widgets_suggestion: [''], key_options: [[]] }] })], 'input_required'],
    ['a booking awaiting its confirmation', [final(['awaiting_confirmation'])], 'awaiting_confirmation'],
    ['a key asked for beside a booking held for its confirmation', [final(['parked', 'awaiting_confirmation'])], 'input_required'],
    ['one done, one waiting for a key', [event('agent_done', { status: 'completed' }), final(['completed', 'parked'])], 'partial'],
    ['an agent answered input_required', [event('agent_done', { status: 'input_required' }), final(['input_required'])], 'input_required'],
    ['a failed agent beside a question', [event('agent_failed'), final(['failed', 'parked'])], 'partial'],
    ['escalated', [event('escalate'), final([])], 'escalated'],
    ['completed, but the verify step found the results insufficient', [event('agent_done', { status: 'completed' }), verified(final(['completed']), false)], 'unresolved'],
    ['one done, one failed, verify insufficient', [event('agent_failed'), verified(final(['completed', 'failed']), false)], 'unresolved'],
    ['every agent failed, verify insufficient', [event('agent_failed'), verified(final(['failed']), false)], 'failed'],
    ['completed and verified sufficient', [event('agent_done', { status: 'completed' }), verified(final(['completed']), true)], 'completed'],
  ])('%s → %s', (_name, events, label) => {
    expect(decideTurnOutcome('completed', events)).toBe(label);
    expect(TURN_OUTCOMES).toContain(label);
  });

  it('a turn that did not run to its end is cancelled; one that broke has failed', () => {
    expect(decideTurnOutcome('cancelled', [event('agent_failed')])).toBe('cancelled');
    expect(decideTurnOutcome('aborted', [])).toBe('cancelled');
    expect(decideTurnOutcome('error', [])).toBe('failed');
  });

  it('/metrics counts a turn under the outcome its done event carried', () => {
    const events = [final(['failed']), event('done', { outcome: 'failed' })];
    expect(turnOutcomeLabel('completed', events)).toBe('failed');
    expect(turnOutcomeLabel('completed', [final(['awaiting_confirmation'])])).toBe('awaiting_confirmation');
  });

  it('reads agent events when the final event lists no tasks', () => {
    expect(decideTurnOutcome('completed', [event('agent_failed'), event('final', { delta: false })])).toBe('failed');
  });
});
