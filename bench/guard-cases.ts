/**
 * The guard's cases of the abuse probe (issue 35, items 1 and 2), each against
 * a real Switchboard in this process (SQLite file, HTTP server, fake agents
 * over HTTP):
 *
 * - disguised secret  a sub-agent sends another agent's bearer token in its progress and its result
 *                     with invisible characters inside, upper-cased, spaced over two lines, as base64,
 *                     as base64url inside a longer encoded text, as hex, percent-encoded
 * - split across agents  agent A ends its result with the token's first half, agent B starts its
 *                     result with the second half
 *
 * `leaked` counts the events whose text carries the disguise as sent, or that
 * (read in order with the one before, for the split) spell the token once
 * case, invisible characters and white space are ignored.
 *
 * `npx tsx bench/guard-cases.ts` runs these cases alone.
 */
import { pathToFileURL } from 'node:url';
import type { ResponseState } from '../src/events/index.js';
import { jsonReply, sseReply, startFakeAgent } from '../test/support/fake-agent.js';
import { SPLIT_SECRET_TOKEN, splitSecretRegistry } from '../test/support/hostile-registries.js';
import { readsAs, secretDisguises } from '../test/support/secret-disguises.js';
import { startTestSwitchboard } from '../test/support/switchboard-harness.js';

/** What one guard case found. */
export interface GuardCase {
  name: string;
  leaked: number;
  events: number;
}

const TOKEN = SPLIT_SECRET_TOKEN;

async function disguisedSecrets(): Promise<GuardCase[]> {
  const disguises = secretDisguises(TOKEN);
  const leaky = await startFakeAgent((_body, index) => {
    const text = disguises[index % disguises.length]!.text;
    return sseReply({ progress: ['正在生成报表', `调试 ${text}`], result: { status: 'completed', output: { rows: 3 }, message: `报表已生成（${text}）。` } });
  });
  const others = [await startFakeAgent(jsonReply()), await startFakeAgent(jsonReply())];
  const board = await startTestSwitchboard({ registryYaml: splitSecretRegistry(leaky.url, others[0]!.url, others[1]!.url), env: { VAULT_TOKEN: TOKEN } });
  const cases: GuardCase[] = [];
  try {
    for (const [index, disguise] of disguises.entries()) {
      const events = await board.chat('帮我生成报表 report', { sessionId: `guard-disguise-${index}`, userId: 'u-guard' });
      const leaked = events.filter((event) => event.content.includes(disguise.text) || readsAs(event.content, TOKEN) || readsAs(JSON.stringify(event.metadata), TOKEN)).length;
      cases.push({ name: `disguised secret: ${disguise.name}`, leaked, events: events.length });
    }
  } finally {
    await board.close();
    await Promise.all([leaky, ...others].map((agent) => agent.close()));
  }
  return cases;
}

async function splitAcrossAgents(): Promise<GuardCase> {
  const first = await startFakeAgent(sseReply({ progress: ['正在生成报表'], result: { status: 'completed', output: { rows: 3 }, message: `报表已生成，编号 ${TOKEN.slice(0, 12)}` } }));
  const second = await startFakeAgent(sseReply({ delayMs: 400, result: { status: 'completed', output: { temp: 21 }, message: `${TOKEN.slice(12)} 晴，21度。` } }));
  const vault = await startFakeAgent(jsonReply());
  const board = await startTestSwitchboard({ registryYaml: splitSecretRegistry(first.url, vault.url, second.url), env: { VAULT_TOKEN: TOKEN } });
  try {
    const events: ResponseState[] = await board.chat('帮我生成报表 report，再查一下天气 weather', { sessionId: 'guard-split', userId: 'u-guard' });
    let leaked = 0;
    for (let index = 0; index < events.length; index += 1) {
      const previous = index > 0 ? events[index - 1]!.content : '';
      if (readsAs(`${previous}${events[index]!.content}`, TOKEN)) leaked += 1;
    }
    return { name: 'split across agents', leaked, events: events.length };
  } finally {
    await board.close();
    await Promise.all([first, second, vault].map((agent) => agent.close()));
  }
}

/** Runs the guard's cases and prints one line each. */
export async function guardCases(): Promise<GuardCase[]> {
  const cases = [...(await disguisedSecrets()), await splitAcrossAgents()];
  for (const item of cases) console.log(`  ${item.name.padEnd(36)} leaked ${item.leaked} (events ${item.events}) — ${item.leaked === 0 ? 'ok' : 'LEAK'}`);
  return cases;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log('secrets in disguise and split across agents:');
  const cases = await guardCases();
  process.exitCode = cases.every((item) => item.leaked === 0) ? 0 : 1;
}
