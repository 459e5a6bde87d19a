/**
 * Registry edits reach routing without a restart: a disabled agent is no longer
 * planned, a re-enabled one is, and a broken edit keeps the last good registry.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

let agent: FakeAgent;
let weather: FakeAgent;
let board: TestSwitchboard;

interface AgentsView {
  version: string;
  last_error: { line: number; message: string } | null;
  agents: { id: string; enabled: boolean }[];
}

async function agentsView(): Promise<AgentsView> {
  return (await (await fetch(`${board.url}/v1/agents`)).json()) as AgentsView;
}

async function waitForVersionChange(previous: string): Promise<AgentsView> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const view = await agentsView();
    if (view.version !== previous) return view;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('registry did not reload');
}

async function waitForError(): Promise<AgentsView> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const view = await agentsView();
    if (view.last_error) return view;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('broken registry not reported');
}

beforeAll(async () => {
  agent = await startFakeAgent(jsonReply());
  weather = await startFakeAgent(sseReply({ result: { status: 'completed', output: { city: '北京', forecast: [] }, message: '晴' } }));
  const yaml = sampleRegistry('agents_config.yaml', { 7101: agent.url, 7102: agent.url, 7103: agent.url, 7104: weather.url }, { answerCacheTtlS: 0 });
  board = await startTestSwitchboard({ registryYaml: yaml });
});

afterAll(async () => {
  await board.close();
  await agent.close();
  await weather.close();
});

it('routes by the live registry and keeps the last good one on a broken edit', async () => {
  const query = '北京明天天气怎么样';
  expect(stageEvents(await board.chat(query, { sessionId: 'r1' }), 'agent_start').map((event) => event.agent_id)).toEqual(['weather_agent']);

  const original = readFileSync(board.configPath, 'utf8');
  const disabled = original.replace(/(- id: weather_agent[\s\S]*?enabled: )true/, '$1false');
  expect(disabled).not.toBe(original);
  const before = await agentsView();
  writeFileSync(board.configPath, disabled);
  const afterDisable = await waitForVersionChange(before.version);
  expect(afterDisable.agents.find((card) => card.id === 'weather_agent')!.enabled).toBe(false);
  const calls = weather.calls.length;
  const offEvents = await board.chat(query, { sessionId: 'r2' });
  expect(stageEvents(offEvents, 'agent_start')).toHaveLength(0);
  expect(weather.calls.length).toBe(calls);

  writeFileSync(board.configPath, `${original}\n  - id: [broken\n`);
  const broken = await waitForError();
  expect(broken.version).toBe(afterDisable.version);
  expect(broken.last_error!.line).toBeGreaterThan(0);

  writeFileSync(board.configPath, original);
  const restored = await waitForVersionChange(afterDisable.version);
  expect(restored.last_error).toBeNull();
  expect(stageEvents(await board.chat(query, { sessionId: 'r3' }), 'agent_start').map((event) => event.agent_id)).toEqual(['weather_agent']);
});
