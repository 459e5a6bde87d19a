/**
 * Two sub-agents share a token between them: agent A ends its result with the
 * first half, agent B (answering a little later) starts its result with the
 * second half, and the summary shows both. Read in the order the user sees
 * them, the agents' texts and the answer never spell the token (case,
 * invisible characters and white space ignored), in the events sent or in the
 * events stored for resume.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';
import { SPLIT_SECRET_TOKEN, splitSecretRegistry } from '../support/hostile-registries.js';
import { readsAs } from '../support/secret-disguises.js';

const TOKEN = SPLIT_SECRET_TOKEN;
const FIRST = TOKEN.slice(0, 12);
const SECOND = TOKEN.slice(12);

describe('a secret split across two agents’ replies', () => {
  let agents: FakeAgent[];
  let board: TestSwitchboard;

  beforeAll(async () => {
    const first = await startFakeAgent(sseReply({ progress: ['正在生成报表'], result: { status: 'completed', output: { rows: 3 }, message: `报表已生成，编号 ${FIRST}` } }));
    const second = await startFakeAgent(sseReply({ delayMs: 400, result: { status: 'completed', output: { temp: 21 }, message: `${SECOND} 晴，21度。` } }));
    agents = [first, await startFakeAgent(jsonReply()), second];
    board = await startTestSwitchboard({ registryYaml: splitSecretRegistry(first.url, agents[1]!.url, second.url), env: { VAULT_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await board.close();
    await Promise.all(agents.map((agent) => agent.close()));
  });

  it('never reaches the user in order, across the agents’ texts and the answer', async () => {
    const events = await board.chat('帮我生成报表 report，再查一下天气 weather', { sessionId: 'across-1' });
    const done = stageEvents(events, 'agent_done');
    expect(done.map((event) => event.agent_id)).toEqual(['leaky_agent', 'chatty_agent']);
    expect(done[1]!.content).toContain('晴，21度');
    expect(finalEvent(events).content).toContain('报表已生成');
    const composed = events.filter((event) => ['agent_stream', 'agent_done', 'final'].includes(event.metadata.stage)).map((event) => event.content);
    expect(readsAs(composed.join(''), TOKEN)).toBe(false);
    // Nor when every event's text is read in a row, status lines dropped or not.
    expect(readsAs(events.map((event) => event.content).join(''), TOKEN)).toBe(false);
  });
});
