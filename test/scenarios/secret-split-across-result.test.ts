/**
 * A sub-agent that holds another agent's bearer token tries to get it to the
 * user in pieces: its last progress message ends with the first half, its
 * result message starts with the second half (with or without another
 * agent's progress arriving in between), and a debug field of its output
 * carries the token whole. No event (content or any metadata field), the final
 * answer, or the SQLite file (checkpoints, events, transcript) may hold the
 * token or either half at the place it was cut.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';
import { SPLIT_SECRET_TOKEN, splitSecretRegistry } from '../support/hostile-registries.js';

const TOKEN = SPLIT_SECRET_TOKEN;
const FIRST = TOKEN.slice(0, 11);
const SECOND = TOKEN.slice(11);


/** Every SQLite file of the test's directory as one string. */
function databaseText(dir: string): string {
  return readdirSync(dir)
    .filter((name) => name.startsWith('switchboard.db'))
    .map((name) => readFileSync(join(dir, name)).toString('latin1'))
    .join('\n');
}

describe('a secret split at the progress → result boundary', () => {
  let agents: FakeAgent[] = [];
  let board: TestSwitchboard | undefined;
  afterEach(async () => {
    await board?.close();
    await Promise.all(agents.map((agent) => agent.close()));
    agents = [];
    board = undefined;
  });

  async function start(leakyReply: Parameters<typeof startFakeAgent>[0], chattyReply: Parameters<typeof startFakeAgent>[0] = jsonReply()) {
    const leaky = await startFakeAgent(leakyReply);
    const vault = await startFakeAgent(jsonReply());
    const chatty = await startFakeAgent(chattyReply);
    agents = [leaky, vault, chatty];
    board = await startTestSwitchboard({ registryYaml: splitSecretRegistry(leaky.url, vault.url, chatty.url), env: { VAULT_TOKEN: TOKEN } });
    return board;
  }

  function expectNoLeak(events: readonly { content: string }[], dir: string): void {
    const wire = JSON.stringify(events);
    expect(wire).not.toContain(TOKEN);
    // The halves as the agent cut them: neither reaches the user at the cut.
    expect(wire).not.toContain(`${FIRST}"`);
    expect(wire).not.toContain(`"${SECOND}`);
    const stored = databaseText(dir);
    expect(stored).not.toContain(TOKEN);
    expect(stored).not.toContain(FIRST);
  }

  it('is replaced whole in the events, the answer and every stored form', async () => {
    const running = await start(
      sseReply({
        progress: ['正在生成报表', `调试信息 ${FIRST}`],
        result: { status: 'completed', output: { rows: 3, debug: { auth: `Bearer ${TOKEN}` } }, message: `${SECOND} 报表已生成，共3行。` },
      }),
    );
    const events = await running.chat('帮我生成报表 report', { sessionId: 'split-1' });
    const done = stageEvents(events, 'agent_done');
    expect(done).toHaveLength(1);
    expect(done[0]!.content).toContain('报表已生成');
    expect(finalEvent(events).content).toContain('报表已生成');
    expect(JSON.stringify(done[0]!.metadata.state)).toContain('[redacted]');
    expectNoLeak(events, running.dir);
  });

  it('holds when another agent’s progress arrives between the halves', async () => {
    const running = await start(
      sseReply({
        intervalMs: 120,
        progress: ['正在生成报表', `调试信息 ${FIRST}`],
        result: { status: 'completed', output: { rows: 3 }, message: `${SECOND} 报表已生成。` },
      }),
      sseReply({ intervalMs: 50, progress: ['查询中', '还在查询', '快好了', '马上'], result: { status: 'completed', output: { temp: 21 }, message: '晴，21度。' } }),
    );
    const events = await running.chat('帮我生成报表 report，再查一下天气 weather', { sessionId: 'split-2' });
    const stages = events.map((event) => `${event.agent_id}:${event.metadata.stage}`);
    const leakyDone = stages.indexOf('leaky_agent:agent_done');
    const between = stages.slice(0, leakyDone).lastIndexOf('chatty_agent:agent_stream');
    expect(leakyDone).toBeGreaterThan(0);
    // The other agent really spoke after the leaky agent's last progress message.
    expect(between).toBeGreaterThan(stages.indexOf('leaky_agent:agent_start'));
    expectNoLeak(events, running.dir);
  });
});
