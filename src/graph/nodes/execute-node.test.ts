import { describe, expect, it } from 'vitest';
import { readMessage } from '../../understanding/index.js';
import { pino } from 'pino';
import type { AgentClient } from '../../agents/types.js';
import { card, snapshotOf } from '../../../test/support/registry-fixtures.js';
import type { NodeConfig, NodeEvent, TurnContext } from '../context.js';
import type { SupervisorState } from '../state.js';
import { createExecuteNode } from './execute-node.js';

function plannedState(agentId: string): SupervisorState {
  return {
    query: 'q',
    user_id: 'u1',
    thread_id: 's1',
    rewritten_query: 'q',
    intent: null,
    task_plan: {
      plan_id: 'p1',
      task_type: 'parallel',
      sub_tasks: [{ task_id: 'p1_task_1', description: 'do it', assigned_agent: agentId, inputs: {}, dependencies: [], status: 'pending' }],
      reasoning: '',
      total_tasks: 1,
      missing_semantic_keys: [],
      user_friendly_message: '',
    },
    invalid_keys: {},
    semantic_info: [],
    task_results: {},
    execution_path: [],
    final_answer: '',
  } as unknown as SupervisorState;
}

describe('execute node', () => {
  it('fails a task whose agent vanished from the registry, naming the available agents in the log only', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const calls: string[] = [];
    const agentClient: AgentClient = { call: async (target) => (calls.push(target.id), { ok: true, reply: { status: 'completed' }, attempts: 1, durationMs: 1 }) };
    const snapshot = snapshotOf([card({ id: 'hotel_agent', name: '酒店服务', description: 'd' }), card({ id: 'weather_agent', name: '天气服务', description: 'd' })]);
    const events: NodeEvent[] = [];
    const context: TurnContext = { snapshot, signal: new AbortController().signal, now: new Date(), traceId: 't1', language: 'zh', message: readMessage(''), usage: { calls: [] }, timings: {} };
    const node = createExecuteNode({ agentClient, logger });
    const update = await node(plannedState('ghost_agent'), { context, writer: (event: NodeEvent) => events.push(event) } as unknown as NodeConfig);
    expect(calls).toEqual([]);
    expect((update.task_results as Record<string, unknown> | undefined)?.p1_task_1).toMatchObject({ status: 'failed', detail: 'the agent is no longer in the registry' });
    const logged = lines.find((line) => line.code === 'AGENT_NOT_FOUND');
    expect(logged).toMatchObject({ agent: 'ghost_agent', availableAgents: ['hotel_agent', 'weather_agent'] });
    // The user is told, in a name-free agent_failed event; nothing available is listed.
    const failed = events.filter((event) => event.stage === 'agent_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ content: '相关服务暂时无法完成（该服务已下线）。', state: { task_id: 'p1_task_1', code: 'agent_unavailable' } });
    expect(events.map((event) => event.stage)).toEqual(['agent_failed']);
    for (const event of events) expect(event.content).not.toMatch(/ghost_agent|hotel_agent|weather_agent|酒店服务|天气服务/);
    expect(JSON.stringify(failed[0]!.state)).not.toMatch(/hotel_agent|weather_agent/);
  });

  it('sends the turn delegation depth on every sub-agent request', async () => {
    const depths: (number | undefined)[] = [];
    const agentClient: AgentClient = { call: async (_target, _body, options) => (depths.push(options?.delegationDepth), { ok: true, reply: { status: 'completed' }, attempts: 1, durationMs: 1 }) };
    const snapshot = snapshotOf([card({ id: 'hotel_agent', name: '酒店服务', description: 'd' })]);
    const context: TurnContext = { snapshot, signal: new AbortController().signal, now: new Date(), traceId: 't1', language: 'zh', message: readMessage(''), usage: { calls: [] }, timings: {}, delegationDepth: 2 };
    await createExecuteNode({ agentClient, logger: pino({ level: 'silent' }) })(plannedState('hotel_agent'), { context, writer: () => undefined } as unknown as NodeConfig);
    expect(depths).toEqual([2]);
  });
});
