import { describe, expect, it } from 'vitest';
import { loadRegistryText } from '../../registry/index.js';
import type { TaskPlan } from '../../planning/plan-types.js';
import { confirmationSummary, holdSideEffects } from './confirmation.js';

const REGISTRY = `version: 1
agents:
  - id: hotel_agent
    name: 酒店服务
    description: 酒店预订
    side_effects: true
    endpoint: { url: http://127.0.0.1:7101/invoke }
    required_semantic_keys:
      - { key: city, description: 入住城市, extract: { enum: [北京, 上海] } }
    input_schema:
      type: object
      properties: { city: { type: string }, check_in: { type: string, format: date }, nights: { type: integer, description: 入住晚数 } }
  - id: weather_agent
    name: 天气查询
    description: 天气
    depends_on: [hotel_agent]
    endpoint: { url: http://127.0.0.1:7104/invoke }
`;

function snapshot() {
  const result = loadRegistryText(REGISTRY, 'agents_config.yaml', { env: {} });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.snapshot;
}

describe('confirmation', () => {
  it('summarises what will be done with every input, labelled for the user', () => {
    const card = snapshot().byId.get('hotel_agent')!;
    expect(confirmationSummary({ description: '帮我订北京的酒店。', inputs: { city: '北京', check_in: '2026-12-01', nights: 2 } }, card, 'zh')).toBe(
      '酒店服务：帮我订北京的酒店（入住城市：北京，日期：2026-12-01，入住晚数：2）',
    );
    expect(confirmationSummary({ description: 'book a hotel', inputs: { city: '北京' } }, card, 'en')).toBe('酒店服务: book a hotel (入住城市: 北京)');
  });

  it('holds dispatchable side-effect tasks and parks what waits on them; parked and read-only tasks are left alone', () => {
    const plan: TaskPlan = {
      plan_id: 'p',
      task_type: 'sequential',
      sub_tasks: [
        { task_id: 'p_task_1', description: '订酒店', assigned_agent: 'hotel_agent', inputs: { city: '北京' }, dependencies: [], status: 'pending' },
        { task_id: 'p_task_2', description: '天气', assigned_agent: 'weather_agent', inputs: {}, dependencies: ['p_task_1'], status: 'pending' },
      ],
      reasoning: '',
      total_tasks: 2,
      missing_semantic_keys: [],
      user_friendly_message: '',
    };
    const { plan: held, confirmation } = holdSideEffects(plan, snapshot(), 'zh');
    expect(held.sub_tasks.map((task) => task.status)).toEqual(['awaiting_confirmation', 'parked']);
    expect(confirmation).toEqual([{ task_id: 'p_task_1', sub_agent_id: 'hotel_agent', summary: '酒店服务：订酒店（入住城市：北京）', inputs: { city: '北京' } }]);
    expect(plan.sub_tasks[0]!.status).toBe('pending');

    const parked = { ...plan, sub_tasks: [{ ...plan.sub_tasks[0]!, status: 'parked' as const }] };
    expect(holdSideEffects(parked, snapshot(), 'zh').confirmation).toEqual([]);
  });
});
