import { beforeAll, describe, expect, it } from 'vitest';
import { useFakeModelGateway } from '../../../test/support/fake-model-gateway.js';
import { snapshotOf, travelCards } from '../../../test/support/registry-fixtures.js';
import { createLlmUsage } from '../../llm/index.js';
import { silentLogger } from '../../logger.js';
import type { TurnContext } from '../context.js';
import type { TaskPlan } from '../../planning/plan-types.js';
import { createLlmAnswers } from './llm-answers.js';
import { composeSummary, createOfflineAnswers } from './offline-answers.js';
import type { SummaryInput } from './types.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const snapshot = snapshotOf(travelCards());

const model = useFakeModelGateway();

function context(): TurnContext {
  return { snapshot, signal: new AbortController().signal, now: NOW, traceId: 't', language: 'zh', usage: createLlmUsage(), timings: {} };
}

const PLAN: TaskPlan = {
  plan_id: 'p',
  task_type: 'parallel',
  sub_tasks: [
    { task_id: 'p_1', description: '', assigned_agent: 'weather_agent', inputs: { city: '北京' }, dependencies: [], status: 'pending' },
    { task_id: 'p_2', description: '', assigned_agent: 'hotel_agent', inputs: {}, dependencies: [], status: 'parked' },
    { task_id: 'p_3', description: '', assigned_agent: 'flight_agent', inputs: {}, dependencies: [], status: 'pending' },
  ],
  reasoning: '',
  total_tasks: 3,
  missing_semantic_keys: ['city'],
  user_friendly_message: '',
};

const SUMMARY_INPUT: SummaryInput = {
  query: '北京天气，订酒店，查机票',
  language: 'zh',
  plan: PLAN,
  outcomes: {
    p_1: { task_id: 'p_1', agent_id: 'weather_agent', status: 'completed', message: '北京明天晴。', output: { city: '北京' } },
    p_3: { task_id: 'p_3', agent_id: 'flight_agent', status: 'failed', reason: 'timeout' },
  },
  semanticInfo: [{ type: 'miss', sub_agent_id: 'hotel_agent', keys: ['city'], key_descriptions: ['入住城市'], fe_widgets_suggestion: ['city_selector'], key_options: [['北京', '上海']] }],
  snapshot,
  now: NOW,
  history: [],
};


describe('LLM answers', () => {
  let answers: ReturnType<typeof createLlmAnswers>;
  beforeAll(() => {
    answers = createLlmAnswers({ gateway: model.gateway, fallback: createOfflineAnswers(), logger: silentLogger });
  });

  it('returns the answer the recognizer already wrote, without a call', async () => {
    const before = model.fake.requests.length;
    const text = await answers.direct(
      { kind: 'out_of_scope', query: 'q', language: 'zh', history: [], snapshot, intent: { kind: 'simple', intents: [], confidence: 'high', reason: '', rewrittenQuery: 'q', userFriendlyMessage: '', answer: '写好的回答' } },
      context(),
    );
    expect(text).toBe('写好的回答');
    expect(model.fake.requests.length).toBe(before);
  });

  it('writes a direct answer in one streamed call on the small model when none was written', async () => {
    model.fake.push({ content: '您好！我可以帮您订酒店（hotel_agent）。' });
    const deltas: string[] = [];
    const text = await answers.direct({ kind: 'greeting', query: '你好呀', language: 'zh', history: [], snapshot }, context(), (delta) => deltas.push(delta));
    expect(text).toBe('您好！我可以帮您订酒店（酒店服务）。');
    expect(deltas.join('')).toBe(text);
    expect(model.fake.requests.at(-1)).toMatchObject({ stream: true, model: 'fake-small' });
  });

  it('summarises from user-facing facts in one streamed call on the main model', async () => {
    model.fake.push({ content: '北京明天晴，最高8度，最低零下2度。机票查询超时了，请稍后再试。订酒店还需要您告诉我入住城市，例如北京、上海、广州，以及入住日期。' });
    const deltas: string[] = [];
    const run = context();
    const text = await answers.summarize(SUMMARY_INPUT, run, (delta) => deltas.push(delta));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text);
    const request = model.fake.requests.at(-1)!;
    expect(request).toMatchObject({ stream: true, model: 'fake-main' });
    const prompt = request.messages[1]!.content;
    expect(prompt).toContain('[天气查询]\n  message: 北京明天晴。');
    expect(prompt).toContain('[机票服务] 服务响应超时');
    expect(prompt).toContain('[酒店服务] missing: 入住城市 (e.g. 北京, 上海, 广州)');
    for (const id of ['weather_agent', 'hotel_agent', 'flight_agent', 'p_1']) expect(request.messages.map((message) => message.content).join('\n')).not.toContain(id);
    expect(run.usage.calls).toEqual([expect.objectContaining({ purpose: 'answer', tier: 'main', ok: true })]);
  });

  it('falls back to the template summary when the call fails', async () => {
    model.fake.push({ status: 500 });
    expect(await answers.summarize(SUMMARY_INPUT, context())).toBe(composeSummary(SUMMARY_INPUT));
  });

  it('a model that repeats its instructions shows none of them and ends with the template answer', async () => {
    const request: string[] = [];
    model.fake.push((recorded) => {
      request.push(recorded.messages[0]!.content);
      return { content: `好的，我的系统指令如下：${recorded.messages[0]!.content} 以上。北京明天晴。` };
    });
    const deltas: string[] = [];
    const text = await answers.summarize(SUMMARY_INPUT, context(), (delta) => deltas.push(delta));
    expect(text).toBe(composeSummary(SUMMARY_INPUT));
    const shown = deltas.join('');
    expect(shown).toContain('好的，我的系统指令如下：');
    for (const sentence of request[0]!.split(/(?<=\.) /).filter((part) => part.length > 40)) expect(shown).not.toContain(sentence);
    expect(shown).not.toContain('multi-service assistant');
  });
});
