import { describe, expect, it } from 'vitest';
import { answerOf, completeFinalOf, doneOf, isAnswerDelta, isCompleteFinal, outcomeOf } from './readers.js';
import type { ResponseState } from './response-state.js';
import type { Stage } from './stages.js';

function event(stage: Stage, content = '', state?: Record<string, unknown>): ResponseState {
  return { type: stage === 'done' ? 'done' : 'content', content, agent_id: 'supervisor', is_thinking: stage === 'final' ? false : true, session_id: 's', metadata: { stage, seq: 1, ...(state ? { state } : {}) } };
}

describe('the readers of a turn\'s events', () => {
  it('tells the complete answer from its streamed pieces, in either event shape', () => {
    expect(isCompleteFinal(event('final', 'a', { delta: false }))).toBe(true);
    expect(isCompleteFinal(event('final', 'a'))).toBe(true);
    expect(isCompleteFinal(event('final', 'a', { delta: true }))).toBe(false);
    expect(isCompleteFinal(event('summarize_start'))).toBe(false);
    expect(isCompleteFinal({ stage: 'final', state: { delta: false } })).toBe(true);
    expect(isAnswerDelta({ stage: 'final', state: { delta: true } })).toBe(true);
    expect(isAnswerDelta(event('agent_stream', 'x', { delta: true }))).toBe(false);
    // Read back from storage: every field unchecked, metadata perhaps missing.
    expect(completeFinalOf([{ metadata: { stage: 'final', state: { delta: false } } }, {}, { metadata: { stage: 'final', state: { delta: true } } }])).toEqual({ metadata: { stage: 'final', state: { delta: false } } });
    expect(isCompleteFinal({})).toBe(false);
  });

  it('finds the last complete final, the answer with an escalation after it, and the outcome done carried', () => {
    const events = [event('final', 'piece', { delta: true }), event('final', 'first'), event('final', 'whole answer'), event('final', 'late piece', { delta: true }), event('escalate', 'handed over'), event('done', '', { outcome: 'escalated' })];
    expect(completeFinalOf(events)?.content).toBe('whole answer');
    expect(answerOf(events)).toBe('whole answer\n\nhanded over');
    expect(answerOf(events.slice(0, 4))).toBe('whole answer');
    expect(outcomeOf(doneOf(events))).toBe('escalated');
    expect(completeFinalOf([event('final', 'p', { delta: true })])).toBeUndefined();
    expect(outcomeOf(doneOf(events.slice(0, 5)))).toBeUndefined();
    expect(outcomeOf(event('done', '', { outcome: 3 }))).toBeUndefined();
  });
});
