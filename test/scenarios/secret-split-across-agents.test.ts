/**
 * Two sub-agents share a token between them: agent A ends its result with the
 * first half, agent B (answering a little later) starts its result with the
 * second half, and the summary shows both. Read in the order the user sees
 * them, the agents' texts and the answer never spell the token (case,
 * invisible characters and white space ignored), in the events sent or in the
 * events stored for resume. Nor does any event end in the token's first
 * {@link SHOWN_AT_MOST}+1 characters or more: the piece that ends in them
 * waits for the next one, and both parts are replaced when it completes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { from, lastValueFrom, toArray } from 'rxjs';
import { HttpAgent, verifyEvents } from '@ag-ui/client';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';
import { SPLIT_SECRET_TOKEN, splitSecretRegistry } from '../support/hostile-registries.js';
import { readsAs } from '../support/secret-disguises.js';

const TOKEN = SPLIT_SECRET_TOKEN;
const FIRST = TOKEN.slice(0, 12);
const SECOND = TOKEN.slice(12);
/** Longest beginning of a secret an event may end in (`HOLD_FROM` − 1: shorter beginnings are never held). */
const SHOWN_AT_MOST = 3;

/** The longest beginning of the token the text ends in (case, invisible characters and white space ignored). */
function endsInBeginning(text: string): number {
  const plain = (value: string) => value.replace(/[\p{Cf}\p{Default_Ignorable_Code_Point}\s]/gu, '').toLowerCase();
  const read = plain(text);
  const token = plain(TOKEN);
  for (let length = Math.min(read.length, token.length); length > 0; length -= 1) if (read.endsWith(token.slice(0, length))) return length;
  return 0;
}

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

  it('never shows the token’s first part: no event ends in more than its first 3 characters', async () => {
    const events = await board.chat('帮我生成报表 report，再查一下天气 weather', { sessionId: 'across-2' });
    expect(stageEvents(events, 'agent_done').map((event) => event.agent_id)).toEqual(['leaky_agent', 'chatty_agent']);
    for (const event of events) expect(endsInBeginning(event.content), `${event.metadata.stage}: ${event.content}`).toBeLessThanOrEqual(SHOWN_AT_MOST);
    // The first agent's result went out whole, with the begun part replaced.
    expect(stageEvents(events, 'agent_done')[0]!.content).toBe('报表已生成，编号 [redacted]');
    expect(readsAs(events.map((event) => event.content).join(''), TOKEN)).toBe(false);
  });

  it('keeps the AG-UI stream valid with a result held back (AG-UI carries the answer and step edges only), and shows no part of the token there', async () => {
    const agent = new HttpAgent({ url: `${board.url}/v1/agui`, threadId: 'across-3', initialMessages: [{ id: 'u-across-3', role: 'user', content: '帮我生成报表 report，再查一下天气 weather' }] });
    const events: object[] = [];
    await agent.runAgent({ runId: 'run-across-3', forwardedProps: { user_id: 'across' } }, { onEvent: ({ event }) => void events.push(event) });
    await expect(lastValueFrom(from(events as never[]).pipe(verifyEvents(false), toArray()))).resolves.toHaveLength(events.length);
    const texts: string[] = [];
    JSON.stringify(events, (_key, value: unknown) => (typeof value === 'string' && texts.push(value), value));
    expect(texts.some((text) => text.includes('晴，21度'))).toBe(true);
    for (const text of texts) expect(endsInBeginning(text), text).toBeLessThanOrEqual(SHOWN_AT_MOST);
    expect(readsAs(texts.join(''), TOKEN)).toBe(false);
  });
});
