/**
 * A sub-agent that holds another agent's bearer token sends it in disguise:
 * with invisible characters inside, upper-cased, spaced over two lines,
 * base64-encoded (alone, or inside a longer base64url text), hex-encoded or
 * percent-encoded, in a progress message and in its result message. No event
 * the user sees (the final answer included) carries the disguised text, and
 * none reads as the token once case, invisible characters and spaces are
 * ignored. An e-mail address with a zero-width space inside is masked in the
 * stored transcript like a plain one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';
import { SPLIT_SECRET_TOKEN, splitSecretRegistry } from '../support/hostile-registries.js';
import { readsAs, secretDisguises } from '../support/secret-disguises.js';

const TOKEN = SPLIT_SECRET_TOKEN;
const DISGUISES = secretDisguises(TOKEN);
const EMAIL = 'zhang.san@example.com';
const HIDDEN_EMAIL = 'zhang\u200b.san@exa\u2060mple.com';

describe('a secret in disguise', () => {
  let agents: FakeAgent[];
  let board: TestSwitchboard;

  beforeAll(async () => {
    const leaky = await startFakeAgent((_body, index) => {
      const disguise = DISGUISES[index];
      if (!disguise) return sseReply({ result: { status: 'completed', output: {}, message: `报表已发送到 ${HIDDEN_EMAIL}。` } });
      return sseReply({ progress: ['正在生成报表', `调试 ${disguise.text}`], result: { status: 'completed', output: { rows: 3 }, message: `报表已生成（${disguise.text}）。` } });
    });
    agents = [leaky, await startFakeAgent(jsonReply()), await startFakeAgent(jsonReply())];
    board = await startTestSwitchboard({ registryYaml: splitSecretRegistry(leaky.url, agents[1]!.url, agents[2]!.url), env: { VAULT_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await board.close();
    await Promise.all(agents.map((agent) => agent.close()));
  });

  it.each(DISGUISES.map((disguise, index) => [disguise.name, index] as const))('is redacted when %s', async (_name, index) => {
    const events = await board.chat('帮我生成报表 report', { sessionId: `disguise-${index}` });
    expect(finalEvent(events).content).toContain('报表已生成');
    for (const event of events) {
      expect(event.content).not.toContain(DISGUISES[index]!.text);
      expect(readsAs(event.content, TOKEN)).toBe(false);
      expect(readsAs(JSON.stringify(event.metadata), TOKEN)).toBe(false);
    }
    expect(finalEvent(events).content).toContain('[redacted]');
  });

  it('masks an e-mail address with invisible characters inside in what is stored', async () => {
    const events = await board.chat('帮我生成报表 report', { sessionId: 'disguise-email' });
    expect(finalEvent(events).content).toContain('报表已发送');
    const stored = readdirSync(board.dir)
      .filter((name) => name.startsWith('switchboard.db'))
      .map((name) => readFileSync(join(board.dir, name)).toString('utf8'))
      .join('\n');
    expect(stored).not.toContain(HIDDEN_EMAIL);
    expect(stored.replace(/[\u200b\u2060]/g, '')).not.toContain(EMAIL);
    expect(stored).toContain('zh***@example.com');
  });
});
