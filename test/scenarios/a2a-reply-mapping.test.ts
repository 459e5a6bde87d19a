/**
 * An A2A sub-agent's reply in our envelope (CONTRACT §3 "A2A, v4 readings"):
 * `output` = its data parts merged (`{}` when it has none), `message` = its
 * text. The same SDK agents — `@a2a-js/sdk` 1.x and the 0.3 SDK, one answering
 * with text only and one with a data part too — each registered both ways (by
 * `a2a_card` and by endpoint), with and without `output_schema: { type:
 * object }`: every registration completes with the agent's text in the answer
 * and an `agent_done`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aPeer, startLegacyA2aPeer, type A2aPeer } from '../support/a2a-peers.js';
import { finalEvent, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

type Sdk = 'v1' | 'v03';
type Reply = 'text' | 'data';
type Registration = 'card' | 'endpoint';
type Schema = 'plain' | 'schema';

interface Case {
  id: string;
  word: string;
  sdk: Sdk;
  reply: Reply;
  registration: Registration;
  schema: Schema;
}

const peers = new Map<string, A2aPeer>();
let board: TestSwitchboard;

const cases: Case[] = [];
let index = 0;
for (const sdk of ['v1', 'v03'] as const)
  for (const reply of ['text', 'data'] as const)
    for (const registration of ['card', 'endpoint'] as const)
      for (const schema of ['plain', 'schema'] as const) {
        // A made-up word per agent, so the offline matcher routes each query to exactly one of them.
        const word = `zq${'abcdefghijklmnop'[index++]}${'xyz'[index % 3]}word`;
        cases.push({ id: `${sdk}_${reply}_${registration}_${schema}`, word, sdk, reply, registration, schema });
      }

function entry(item: Case, peer: A2aPeer): string {
  const lines = [`  - id: ${item.id}`];
  if (item.registration === 'card') {
    lines.push(`    a2a_card: ${peer.cardUrl}`);
  } else {
    lines.push(`    name: ${item.id}`, `    description: Weather agent ${item.word}`, '    endpoint:', `      url: ${peer.url}`, '      protocol: a2a', '      timeout_ms: 5000');
  }
  lines.push(
    `    keywords: [${item.word}]`,
    `    examples: ["${item.word} Paris"]`,
    '    required_semantic_keys:',
    '      - key: city',
    '        description: { zh: 城市, en: city }',
    '        extract: { enum: [Paris, London] }',
  );
  if (item.schema === 'schema') lines.push('    output_schema: { type: object }');
  return lines.join('\n');
}

beforeAll(async () => {
  for (const sdk of ['v1', 'v03'] as const) {
    for (const reply of ['text', 'data'] as const) {
      const options = { streaming: false, replyData: reply === 'data' };
      peers.set(`${sdk}_${reply}`, sdk === 'v1' ? await startA2aPeer(options) : await startLegacyA2aPeer(options));
    }
  }
  const yaml = ['version: 1', 'supervisor:', '  answer_cache_ttl_s: 0', 'agents:', ...cases.map((item) => entry(item, peers.get(`${item.sdk}_${item.reply}`)!))].join('\n') + '\n';
  board = await startTestSwitchboard({ registryYaml: yaml, a2aCards: { ttlMs: 0, timeoutMs: 2000 } });
});

afterAll(async () => {
  await board.close();
  await Promise.all([...peers.values()].map((peer) => peer.close()));
});

describe('A2A replies in our envelope', () => {
  it.each(cases)('$sdk agent answering with $reply, registered by $registration ($schema): completed, its text answers, output is an object', async (item) => {
    const events = await board.chat(`${item.word} Paris`, { sessionId: `map-${item.id}` });
    expect(stageEvents(events, 'agent_failed').map((event) => event.content)).toEqual([]);
    const done = stageEvents(events, 'agent_done').find((event) => event.agent_id === item.id);
    expect(done, `agent_done of ${item.id}`).toBeDefined();
    const state = done!.metadata.state as { status: string; output: Record<string, unknown> };
    expect(state.status).toBe('completed');
    expect(state.output).toEqual(item.reply === 'data' ? { city: 'Paris', forecast: 'sunny', high_c: 21 } : {});
    expect(finalEvent(events).content).toContain('Sunny in Paris');
  });
});
