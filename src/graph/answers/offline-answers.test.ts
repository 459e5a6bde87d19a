import { describe, expect, it } from 'vitest';
import { snapshotOf, travelCards } from '../../../test/support/registry-fixtures.js';
import type { AgentCard } from '../../registry/types.js';
import type { Language } from '../../i18n/index.js';
import type { SubTask, TaskOutcome, TaskPlan, TaskStatus } from '../../planning/plan-types.js';
import type { SemanticInfo } from '../../events/index.js';
import { composeSummary, renderOutput } from './offline-answers.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const cards = travelCards() as [AgentCard, AgentCard, AgentCard, AgentCard];
const snapshot = snapshotOf(cards);
const AGENT_IDS = [...cards.map((card) => card.id), 'gone_agent'];

function subTask(taskId: string, agentId: string, status: TaskStatus = 'pending'): SubTask {
  return { task_id: taskId, description: agentId, assigned_agent: agentId, inputs: {}, dependencies: [], status };
}

function summary(options: {
  tasks: SubTask[];
  outcomes?: TaskOutcome[];
  semanticInfo?: SemanticInfo[];
  refusedValues?: Record<string, Record<string, string>>;
  language?: Language;
}): string {
  const plan: TaskPlan = {
    plan_id: 'plan_test',
    task_type: 'parallel',
    sub_tasks: options.tasks,
    reasoning: '',
    total_tasks: options.tasks.length,
    missing_semantic_keys: [],
    user_friendly_message: '',
  };
  const text = composeSummary({
    query: 'q',
    language: options.language ?? 'zh',
    plan,
    outcomes: Object.fromEntries((options.outcomes ?? []).map((outcome) => [outcome.task_id, outcome])),
    semanticInfo: options.semanticInfo ?? [],
    ...(options.refusedValues ? { refusedValues: options.refusedValues } : {}),
    snapshot,
    now: NOW,
    history: [],
  });
  for (const id of AGENT_IDS) expect(text).not.toContain(id);
  return text;
}

function outcome(taskId: string, agentId: string, status: TaskStatus, extra: Partial<TaskOutcome> = {}): TaskOutcome {
  return { task_id: taskId, agent_id: agentId, status, ...extra };
}

const hotelMiss: SemanticInfo = {
  type: 'miss',
  sub_agent_id: 'hotel_agent',
  keys: ['city', 'check_in_date'],
  key_descriptions: ['入住城市', '入住日期'],
  fe_widgets_suggestion: ['city_selector', 'date_picker'],
  key_options: [['北京', '上海'], []],
};

describe('composeSummary', () => {
  it("shows a completed task's own message under the agent's name", () => {
    const text = summary({ tasks: [subTask('t1', 'hotel_agent')], outcomes: [outcome('t1', 'hotel_agent', 'completed', { message: ' 已为您预订北京饭店。 ', output: { booking_id: 'HB-1' } })] });
    expect(text).toBe('【酒店服务】\n已为您预订北京饭店。');
  });

  it('renders the output when the agent sent no message', () => {
    const text = summary({
      tasks: [subTask('t1', 'hotel_agent')],
      outcomes: [outcome('t1', 'hotel_agent', 'completed', { output: { hotels: [{ name: '北京饭店', price: 880, tags: ['近地铁'] }], booking_id: 'HB-1', note: '' } })],
    });
    expect(text).toBe('【酒店服务】\n- 北京饭店 · 880\nbooking_id: HB-1');
  });

  it.each<[Language, string]>([
    ['zh', '【天气查询】\n已完成。'],
    ['en', '【天气查询】\nDone.'],
  ])('says the task is done when there is nothing to show (%s)', (language, expected) => {
    expect(summary({ language, tasks: [subTask('t1', 'weather_agent')], outcomes: [outcome('t1', 'weather_agent', 'completed')] })).toBe(expected);
  });

  it('explains failed and skipped tasks in Chinese', () => {
    const text = summary({
      tasks: [subTask('t1', 'hotel_agent'), subTask('t2', 'limo_agent'), subTask('t3', 'flight_agent')],
      outcomes: [
        outcome('t1', 'hotel_agent', 'failed', { reason: 'timeout', detail: 'hotel_agent did not answer in 10000 ms' }),
        outcome('t2', 'limo_agent', 'skipped', { reason: 'dependency' }),
        outcome('t3', 'flight_agent', 'failed', { reason: 'something_new' }),
      ],
    });
    expect(text).toBe(
      [
        '以下任务暂未执行：',
        '- 酒店服务：未能完成（服务响应超时），请稍后再试。',
        '- 机场接送机服务：未能完成（它依赖的任务未完成），请稍后再试。',
        '- 机票服务：未能完成（服务处理失败），请稍后再试。',
      ].join('\n'),
    );
  });

  it('explains failed and skipped tasks in English', () => {
    const text = summary({
      language: 'en',
      tasks: [subTask('t1', 'hotel_agent'), subTask('t2', 'limo_agent')],
      outcomes: [outcome('t1', 'hotel_agent', 'failed', { reason: 'connect_error' }), outcome('t2', 'limo_agent', 'skipped', { reason: 'dependency' })],
    });
    expect(text).toBe(
      [
        'Not done yet:',
        '- 酒店服务: not completed (the service is unavailable); please try again later.',
        '- 机场接送机服务: not completed (a task it depends on did not complete); please try again later.',
      ].join('\n'),
    );
  });

  it('counts a task failed before dispatch (no outcome) as not completed', () => {
    expect(summary({ tasks: [subTask('t1', 'hotel_agent', 'failed')] })).toContain('- 酒店服务：未能完成（服务处理失败）');
  });

  it('asks for missing keys with example values from the enum and for dates', () => {
    const text = summary({ tasks: [subTask('t1', 'hotel_agent', 'parked')], semanticInfo: [hotelMiss] });
    expect(text).toBe('以下任务暂未执行：\n- 酒店服务：需要您补充入住城市（例如：北京、上海、广州）、入住日期（例如：明天、2026-11-23）');
  });

  it('asks for missing keys in English', () => {
    const text = summary({ language: 'en', tasks: [subTask('t1', 'hotel_agent', 'parked')], semanticInfo: [hotelMiss] });
    expect(text).toBe('Not done yet:\n- 酒店服务: needs 入住城市 (e.g. Beijing, Shanghai, Guangzhou), 入住日期 (e.g. tomorrow, 2026-11-23)');
  });

  it('asks again for an invalid key, and names a task waiting behind a parked one', () => {
    const invalid: SemanticInfo = { ...hotelMiss, type: 'invalid', keys: ['check_in_date'], key_descriptions: ['入住日期'], fe_widgets_suggestion: ['date_picker'] };
    const text = summary({ tasks: [subTask('t1', 'hotel_agent', 'parked'), subTask('t2', 'limo_agent', 'parked')], semanticInfo: [invalid] });
    expect(text).toBe(
      ['以下任务暂未执行：', '- 酒店服务：请重新提供有效的入住日期（例如：明天、2026-11-23）', '- 机场接送机服务：将在上述信息补充后一并处理'].join('\n'),
    );
  });

  it.each<[Language, string]>([
    ['zh', '- 酒店服务：暂不支持 南京，可选：北京、上海、广州、深圳、杭州、成都、西安'],
    ['en', '- 酒店服务: Nanjing is not supported; choose one of: Beijing, Shanghai, Guangzhou, Shenzhen, Hangzhou, Chengdu'],
  ])('names a refused enum value and the allowed values in the user\'s language (%s)', (language, line) => {
    const invalid: SemanticInfo = { ...hotelMiss, type: 'invalid', keys: ['city'], key_descriptions: ['入住城市'], fe_widgets_suggestion: ['city_selector'], key_options: [[]] };
    const refused = language === 'zh' ? '南京' : 'Nanjing';
    const text = summary({ language, tasks: [subTask('t1', 'hotel_agent', 'parked')], semanticInfo: [invalid], refusedValues: { hotel_agent: { city: refused } } });
    expect(text.split('\n')).toContain(line);
    expect(text).not.toMatch(/需要您补充|needs/);
  });

  it('names a refused value of a free key and asks again for it', () => {
    const invalid: SemanticInfo = { ...hotelMiss, type: 'invalid', keys: ['check_in_date'], key_descriptions: ['入住日期'], fe_widgets_suggestion: ['date_picker'], key_options: [[]] };
    const text = summary({ tasks: [subTask('t1', 'hotel_agent', 'parked')], semanticInfo: [invalid], refusedValues: { hotel_agent: { check_in_date: '2月30日' } } });
    expect(text).toContain('- 酒店服务：入住日期「2月30日」无效，请重新提供（例如：明天、2026-11-23）');
  });

  it("passes on the agent's own question when it needs input but named no keys", () => {
    const text = summary({
      tasks: [subTask('t1', 'flight_agent')],
      outcomes: [outcome('t1', 'flight_agent', 'input_required', { message: '请问您要经济舱还是商务舱？', missing_keys: [] })],
    });
    expect(text).toBe('以下任务暂未执行：\n- 机票服务：请问您要经济舱还是商务舱？');
    const silent = summary({ language: 'en', tasks: [subTask('t1', 'flight_agent')], outcomes: [outcome('t1', 'flight_agent', 'input_required')] });
    expect(silent).toBe('Not done yet:\n- 机票服务: needs more information from you');
  });

  it("passes on the agent's question when the keys it names are not declared in the registry", () => {
    const text = summary({
      tasks: [subTask('t1', 'flight_agent')],
      outcomes: [outcome('t1', 'flight_agent', 'input_required', { message: '请问您要经济舱还是商务舱？', missing_keys: ['cabin_class'] })],
      semanticInfo: [{ type: 'miss', sub_agent_id: 'flight_agent', keys: ['cabin_class'], key_descriptions: ['cabin_class'], fe_widgets_suggestion: [''], key_options: [[]] }],
    });
    expect(text).toBe('以下任务暂未执行：\n- 机票服务：请问您要经济舱还是商务舱？');
  });

  it('joins done and not-done sections', () => {
    const text = summary({
      tasks: [subTask('t1', 'weather_agent'), subTask('t2', 'hotel_agent', 'parked')],
      outcomes: [outcome('t1', 'weather_agent', 'completed', { message: '北京明天晴。' })],
      semanticInfo: [hotelMiss],
    });
    expect(text.split('\n\n')).toEqual(['【天气查询】\n北京明天晴。', '以下任务暂未执行：\n- 酒店服务：需要您补充入住城市（例如：北京、上海、广州）、入住日期（例如：明天、2026-11-23）']);
  });

  it('names an agent missing from the registry generically', () => {
    const text = summary({ tasks: [subTask('t1', 'gone_agent')], outcomes: [outcome('t1', 'gone_agent', 'failed', { reason: 'agent_failed' })] });
    expect(text).toBe('以下任务暂未执行：\n- 相关服务：未能完成（服务处理失败），请稍后再试。');
  });

  it('apologises when there was nothing to do', () => {
    expect(summary({ tasks: [] })).toBe('抱歉，本次没有可以执行的任务。');
    expect(summary({ tasks: [], language: 'en' })).toBe('Sorry, there was nothing I could do for this request.');
  });
});

describe('renderOutput', () => {
  it('lists at most five items of an array and skips empty values', () => {
    const lines = renderOutput({ items: [1, 2, 3, 4, 5, 6, 7], empty: null, blank: '', nested: { a: 1, b: 'x', deep: { c: 2 } } });
    expect(lines).toEqual(['- 1', '- 2', '- 3', '- 4', '- 5', 'nested: 1 · x']);
    expect(renderOutput(undefined)).toEqual([]);
  });
});
