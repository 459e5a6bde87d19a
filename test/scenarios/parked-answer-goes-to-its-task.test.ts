/**
 * Two tasks parked in one turn, the user answers the one that asked: the
 * answer joins that task's message only (the other keeps its own words), in
 * the turn's script — no Chinese comma inside an English request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { sampleRegistry, startTestSwitchboard, stageEvents, type TestSwitchboard } from '../support/switchboard-harness.js';

let board: TestSwitchboard;
let agent: FakeAgent;

beforeAll(async () => {
  agent = await startFakeAgent(jsonReply({ body: { status: 'completed', output: {}, message: 'ok' } }));
  const urls = { 7101: agent.url, 7102: agent.url, 7103: agent.url, 7104: agent.url };
  board = await startTestSwitchboard({ registryYaml: sampleRegistry('agents_config.yaml', urls, { keepSideEffects: true, answerCacheTtlS: 0 }) });
});
afterAll(async () => {
  await board?.close();
  await agent?.close();
});

type Planned = { assigned_agent: string; description: string };
const planned = (events: Awaited<ReturnType<TestSwitchboard['chat']>>): Planned[] =>
  ((stageEvents(events, 'plan_done')[0]?.metadata.state as { task_plan?: { sub_tasks: Planned[] } } | undefined)?.task_plan?.sub_tasks ?? []).map(
    ({ assigned_agent, description }) => ({ assigned_agent, description }),
  );

describe('an answer to one parked task\'s question', () => {
  it('goes to that task only, joined in the turn\'s script (English)', async () => {
    const first = await board.chat('Book a hotel in Beijing and an airport pickup at Capital Airport tomorrow at 7am', { sessionId: 'en-1' });
    const asked = stageEvents(first, 'final')[0]!.metadata.semantic_info!;
    expect(asked.map((info) => [info.sub_agent_id, info.keys])).toEqual([['hotel_agent', ['check_in_date']]]);
    const second = await board.chat('check-in date: 2026-12-01', { sessionId: 'en-1' });
    expect(planned(second)).toEqual([
      { assigned_agent: 'hotel_agent', description: 'Book a hotel in Beijing, check-in date: 2026-12-01' },
      { assigned_agent: 'limo_agent', description: 'an airport pickup at Capital Airport tomorrow at 7am' },
    ]);
  });

  it('goes to that task only (Chinese), with the Chinese comma', async () => {
    await board.chat('帮我订北京的酒店，明天早上7点到首都机场接机', { sessionId: 'zh-1' });
    const second = await board.chat('入住日期：2026-12-01', { sessionId: 'zh-1' });
    const tasks = planned(second);
    expect(tasks.find((task) => task.assigned_agent === 'hotel_agent')?.description).toBe('帮我订北京的酒店，入住日期：2026-12-01');
    expect(tasks.find((task) => task.assigned_agent === 'limo_agent')?.description).not.toContain('入住日期');
  });
});
