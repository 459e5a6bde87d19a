/**
 * The shipped registry's A2A agent: the demo currency-exchange agent (built
 * with @a2a-js/sdk) registered by `a2a_card` alone, routed to from what its
 * card says, answering through the a2a protocol adapter.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDemoA2aAgent, type DemoA2aAgent } from '../../demo/exchange-agent.js';
import { finalEvent, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';
import type { PublicAgentCard } from '../../src/registry/types.js';

let exchange: DemoA2aAgent;
let board: TestSwitchboard;

beforeAll(async () => {
  exchange = await startDemoA2aAgent({ port: 0 });
  const yaml = readFileSync('agents_config.yaml', 'utf8').replace('http://127.0.0.1:${DEMO_EXCHANGE_PORT:-7105}/.well-known/agent-card.json', exchange.cardUrl);
  board = await startTestSwitchboard({ registryYaml: yaml });
});

afterAll(async () => {
  await board.close();
  await exchange.close();
});

it('registers the agent from its card: the card\'s examples and tags, the file\'s name and key', async () => {
  const { agents } = (await (await fetch(`${board.url}/v1/agents`)).json()) as { agents: PublicAgentCard[] };
  const card = agents.find((agent) => agent.id === 'exchange_agent')!;
  expect(card).toMatchObject({ enabled: true, protocol: 'a2a', names: { zh: '汇率换算', en: 'Currency exchange' } });
  expect(card.examples).toContain('100美元能换多少人民币');
  expect(card.keywords).toEqual(expect.arrayContaining(['汇率', '换汇']));
  expect(card.required_semantic_keys.map((key) => key.key)).toEqual(['currency']);
});

it('routes a conversion to it and answers with its result', async () => {
  const events = await board.chat('200美元能换多少人民币', { sessionId: 'fx-1' });
  const done = stageEvents(events, 'agent_done').find((event) => event.agent_id === 'exchange_agent');
  expect(done?.metadata.state).toMatchObject({ status: 'completed', output: { currency: 'USD', amount: 200, cny: 1440 } });
  expect(stageEvents(events, 'agent_stream').map((event) => event.content)).toContain('正在查询汇率…');
  expect(finalEvent(events).content).toContain('1440');
});

it('asks for the currency before calling it', async () => {
  const events = await board.chat('我想换汇，汇率是多少', { sessionId: 'fx-2', userId: 'u-fx-2' });
  expect(events.flatMap((event) => event.metadata.semantic_info ?? [])).toContainEqual(expect.objectContaining({ sub_agent_id: 'exchange_agent', keys: ['currency'] }));
  expect(stageEvents(events, 'agent_start')).toEqual([]);
});
