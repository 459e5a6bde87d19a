import { describe, expect, it } from 'vitest';
import { card, snapshotOf } from '../../../test/support/registry-fixtures.js';
import { SUPERVISOR_DEFAULTS } from '../../registry/defaults.js';
import type { SubTask, TaskOutcome } from '../../planning/plan-types.js';
import { budgetNotices } from './notices.js';

const snapshot = snapshotOf([
  card({ id: 'hotel_agent', name: '酒店服务', names: { zh: '酒店服务', en: 'Hotel booking' }, description: 'hotels' }),
  card({ id: 'weather_agent', name: '天气查询', names: { zh: '天气查询', en: 'Weather' }, description: 'weather' }),
]);

function task(taskId: string, agent: string): SubTask {
  return { task_id: taskId, description: taskId, assigned_agent: agent, inputs: {}, dependencies: [], status: 'pending' };
}

const tasks = [task('t1', 'hotel_agent'), task('t2', 'weather_agent'), task('t3', 'ghost_agent')];
const limits = { maxSubtasks: 1, maxLlmTokens: 500, maxTurnMs: 1500 };

describe('budgetNotices', () => {
  it('names the services each budget stopped, in the language of the turn, never their ids', () => {
    const outcomes: Record<string, TaskOutcome> = {
      t1: { task_id: 't1', agent_id: 'hotel_agent', status: 'completed' },
      t2: { task_id: 't2', agent_id: 'weather_agent', status: 'skipped', reason: 'max_subtasks' },
      t3: { task_id: 't3', agent_id: 'ghost_agent', status: 'skipped', reason: 'max_subtasks' },
    };
    const [zh] = budgetNotices({ reached: ['max_subtasks'], limits, tasks, outcomes, snapshot, language: 'zh' });
    expect(zh).toBe('您的请求包含的任务较多，单次最多处理1项，以下没有处理：「天气查询」、「相关服务」。如仍需要，请再单独告诉我。');
    const [en] = budgetNotices({ reached: ['max_subtasks'], limits, tasks, outcomes, snapshot, language: 'en' });
    expect(en).toBe('Your request had more tasks than I handle at once (at most 1), so these were not done: Weather; a service. Ask for them again if you still need them.');
    expect(`${zh}${en}`).not.toMatch(/_agent/);
  });

  it('says one sentence per budget reached, in the order reached', () => {
    const outcomes: Record<string, TaskOutcome> = {
      t1: { task_id: 't1', agent_id: 'hotel_agent', status: 'failed', reason: 'max_turn_ms' },
    };
    const notices = budgetNotices({ reached: ['max_llm_tokens', 'max_turn_ms'], limits, tasks, outcomes, snapshot, language: 'en' });
    expect(notices).toEqual([
      'This request reached its model usage limit, so the rest was handled in a simplified way.',
      'This request reached its time limit (1.5 s), so unfinished tasks were stopped: Hotel booking. Below is what was completed.',
    ]);
  });

  it('says the answer is simplified when the time budget stopped no task', () => {
    expect(budgetNotices({ reached: ['max_turn_ms'], limits: SUPERVISOR_DEFAULTS.budgets, snapshot, language: 'zh' })).toEqual(['本次处理已达到时间上限（60秒），回答已简化。']);
    expect(budgetNotices({ reached: [], limits, snapshot, language: 'zh' })).toEqual([]);
  });
});
