/**
 * `npx tsx bench/abuse.ts`: the abuse probe (issue 9). Three runs against a
 * real Switchboard in this process, each printing counts:
 *
 * 1. Injection corpus — every string of test/fixtures/injection-corpus.jsonl,
 *    direct (in the query) and indirect (inside a sub-agent reply), offline
 *    and in LLM mode against a compromised fake model that obeys every
 *    injected instruction (test/support/injection-fleet.ts): tried / leaked
 *    (agent id, endpoint address, header value or system-prompt sentence in
 *    what the user sees) / extra agent calls / injected text forwarded to a
 *    non-dependent agent; plus how many strings the instruction-like-text
 *    heuristic recognises (defence in depth only, nothing depends on it alone).
 * 2. Personal data — a session with a mobile number, an ID-card number, a bank
 *    card and an e-mail address in the user's text and in the agent's replies;
 *    then the whole log output and every database file are searched for each
 *    raw value: tried / raw found / masked forms seen.
 * 3. Flood — an SSE agent that sends thousands of progress events and a large
 *    stream: events and bytes sent versus relayed to the client.
 *
 * 4. Hardening cases (bench/hardening-cases.ts) — a secret split at the
 *    progress → result boundary, full-width personal values, an alias-bomb
 *    registry on hot reload, 20 flooding agents at once, a made-up
 *    Authorization header against the rate limit, a redirecting escalation
 *    webhook, and edge bodies; each with a /healthz prober running, printing
 *    what leaked and the worst and p99 /healthz latency during it.
 *
 * 6. Secrets in disguise and split across agents (bench/guard-cases.ts): a
 *    token with invisible characters inside, upper-cased, spaced, base64,
 *    base64url at an offset, hex, percent-encoded; halves in two agents' replies.
 *
 * 5. Overload, buffers and reloads (bench/admission-cases.ts) — an open-loop
 *    client past `max_concurrent_turns` (only 200s and 503 OVERLOADED, no
 *    reset connections), a flood of large replies (byte budget and RSS), and a
 *    hot reload parsed once.
 *
 * Exit code 1 when anything leaked, an overload/buffer/reload case failed, an extra call was made, a raw value was
 * found, or /healthz p99 reached 200 ms during a hardening case.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { startServer } from '../src/http/index.js';
import { createLogger, silentLogger, type Logger } from '../src/logger.js';
import { maskPersonalData } from '../src/privacy/mask-personal-data.js';
import { createPiiMasking } from '../src/privacy/index.js';
import { createSwitchboard } from '../src/switchboard.js';
import { hasInjectionSignals } from '../src/text/injection-signals.js';
import { jsonReply, sseReply, startFakeAgent } from '../test/support/fake-agent.js';
import { readInjectionCorpus, runCases, startInjectionFleet, type CaseResult } from '../test/support/injection-fleet.js';
import { chatOverSse } from '../test/support/switchboard-harness.js';
import { hardeningCases } from './hardening-cases.js';
import { admissionCases } from './admission-cases.js';
import { guardCases } from './guard-cases.js';

/** Figures of one abuse run. */
export interface AbuseResult {
  pass: boolean;
  tried: number;
  leaked: number;
  extraCalls: number;
  masked: number;
  unmasked: number;
}

const RAW = {
  mobile: '13812345678',
  idCard: '11010519491231002X',
  bankCard: '6222021234567890128',
  email: 'zhang.san@example.com',
};
/** The masked form of each value, as the product's own masker writes it (a fixed list drifted once and hid the e-mails). */
const MASKED = Object.fromEntries(Object.entries(RAW).map(([kind, value]) => [kind, maskPersonalData(value)])) as Record<keyof typeof RAW, string>;

async function injection(): Promise<{ tried: number; leaked: number; extra: number; forwarded: number }> {
  const corpus = readInjectionCorpus();
  const flagged = corpus.filter((entry) => hasInjectionSignals(entry.text)).length;
  const fleet = await startInjectionFleet();
  const totals = { tried: 0, leaked: 0, extra: 0, forwarded: 0 };
  console.log(`injection corpus: ${corpus.length} strings (zh ${corpus.filter((entry) => entry.lang === 'zh').length}, en ${corpus.filter((entry) => entry.lang === 'en').length}; direct ${corpus.filter((entry) => entry.channel === 'direct').length}, indirect ${corpus.filter((entry) => entry.channel === 'indirect').length})`);
  console.log('  mode     channel   tried  leaked  extra-calls  forwarded  ms');
  try {
    for (const mode of ['offline', 'llm'] as const) {
      const started = performance.now();
      const results = await runCases(fleet, corpus, mode);
      const ms = Math.round(performance.now() - started);
      for (const channel of ['direct', 'indirect'] as const) {
        const part: CaseResult[] = results.filter((_result, index) => corpus[index]!.channel === channel);
        const leaked = part.filter((result) => result.leaks.length > 0).length;
        const extra = part.reduce((sum, result) => sum + result.extraCalls.reduce((calls, item) => calls + Number(item.split('×')[1] ?? 1), 0), 0);
        const forwarded = part.filter((result) => result.forwarded).length;
        console.log(`  ${mode.padEnd(8)} ${channel.padEnd(9)} ${String(part.length).padStart(5)}  ${String(leaked).padStart(6)}  ${String(extra).padStart(11)}  ${String(forwarded).padStart(9)}  ${channel === 'direct' ? ms : ''}`);
        for (const result of part.filter((item) => item.leaks.length > 0 || item.extraCalls.length > 0 || item.forwarded).slice(0, 3)) {
          console.log(`    ${result.id}: ${[...result.leaks, ...result.extraCalls, result.forwarded ? 'forwarded' : ''].filter(Boolean).join('; ')}`);
        }
        totals.tried += part.length;
        totals.leaked += leaked;
        totals.extra += extra;
        totals.forwarded += forwarded;
      }
    }
    console.log(`  model calls answered by the compromised model: ${fleet.model.requests.length}`);
    console.log(`  recognised by the instruction-like-text heuristic: ${flagged}/${corpus.length}`);
  } finally {
    await fleet.close();
  }
  return totals;
}

function contactRegistry(url: string): string {
  return `version: 1
agents:
  - id: contact_agent
    name: 会员登记
    description: 会员资料登记 register a member's contact details
    keywords: [登记, 会员, register]
    endpoint: { url: "${url}", retries: 0 }
    required_semantic_keys:
      - { key: phone, description: 手机号, extract: { type: phone } }
      - { key: email, description: 邮箱, extract: { type: email } }
`;
}

async function personalData(): Promise<{ tried: number; raw: number; masked: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-abuse-pii-'));
  const agent = await startFakeAgent(() =>
    jsonReply({ output: { registered: true, phone: RAW.mobile, card: RAW.bankCard }, message: `已登记 ${RAW.mobile} / ${RAW.email}，身份证 ${RAW.idCard}，卡 ${RAW.bankCard}` }),
  );
  const logLines: string[] = [];
  try {
    const configPath = join(dir, 'agents_config.yaml');
    writeFileSync(configPath, contactRegistry(agent.url));
    const masking = createPiiMasking();
    const logger: Logger = createLogger({
      level: 'debug',
      masker: masking,
      destination: new Writable({ write: (chunk: Buffer, _encoding, done) => (logLines.push(chunk.toString('utf8')), done()) }),
    });
    const switchboard = await createSwitchboard({ configPath, databaseUrl: `sqlite:${join(dir, 'switchboard.db')}`, logger, masking, env: {}, watch: false });
    const server = await startServer(switchboard.app, { port: 0, host: '127.0.0.1', streams: switchboard.streams });
    const session = { sessionId: 'abuse-pii', userId: 'u-abuse' };
    await chatOverSse(server.url, `帮我登记会员，手机 ${RAW.mobile}，邮箱 ${RAW.email}，身份证 ${RAW.idCard}，银行卡 ${RAW.bankCard}`, session);
    await chatOverSse(server.url, `转人工，我的卡号是 ${RAW.bankCard}，电话 ${RAW.mobile}`, session);
    await chatOverSse(server.url, `register me again: ${RAW.email}, ${RAW.mobile}`, session);
    const history = await (await fetch(`${server.url}/v1/sessions/abuse-pii/messages?user_id=u-abuse`)).text();
    await server.close();
    await switchboard.close();

    const logText = logLines.join('');
    const files = readdirSync(dir).filter((name) => name.startsWith('switchboard.db'));
    const database = Buffer.concat(files.map((name) => readFileSync(join(dir, name))));
    const databaseText = database.toString('utf8');
    console.log(`personal data: 3 turns, ${Object.keys(RAW).length} kinds in user text and agent replies; agent received phone=${JSON.stringify((agent.calls[0]?.body as { inputs?: Record<string, string> })?.inputs?.phone ?? null)} (its declared key, real value)`);
    console.log('  kind       raw-in-logs  raw-in-db  raw-in-transcript  masked-in-logs+db');
    let raw = 0;
    let masked = 0;
    for (const [kind, value] of Object.entries(RAW) as [keyof typeof RAW, string][]) {
      const counts = [logText.split(value).length - 1, databaseText.split(value).length - 1, history.split(value).length - 1];
      const maskedCount = logText.split(MASKED[kind]).length - 1 + databaseText.split(MASKED[kind]).length - 1;
      raw += counts.reduce((sum, count) => sum + count, 0);
      masked += maskedCount;
      console.log(`  ${kind.padEnd(10)} ${String(counts[0]).padStart(11)}  ${String(counts[1]).padStart(9)}  ${String(counts[2]).padStart(17)}  ${String(maskedCount).padStart(17)}`);
    }
    console.log(`  log lines: ${logLines.length}; database files: ${files.join(', ')} (${database.length} bytes); masked forms seen in logs + db: ${masked}`);
    return { tried: Object.keys(RAW).length, raw, masked };
  } finally {
    await agent.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function floodRegistry(url: string): string {
  return `version: 1
agents:
  - id: flood_agent
    name: 洪水测试
    description: 一个话很多的服务 a chatty service
    keywords: [洪水, flood]
    endpoint: { url: "${url}", protocol: http-sse, retries: 0, timeout_ms: 30000 }
`;
}

async function flood(): Promise<{ sentEvents: number; relayedEvents: number }> {
  const small = 5000;
  const large = 40;
  const chunk = '数据'.repeat(2048); // 12 KB of UTF-8 per large event
  const progress = [...Array.from({ length: small }, (_unused, index) => `progress ${index}`), ...Array.from({ length: large }, () => chunk)];
  const sentBytes = progress.reduce((sum, item) => sum + Buffer.byteLength(item, 'utf8'), 0);
  const agent = await startFakeAgent(sseReply({ progress, result: { status: 'completed', output: {}, message: '完成。' } }));
  const dir = mkdtempSync(join(tmpdir(), 'sb-abuse-flood-'));
  try {
    const configPath = join(dir, 'agents_config.yaml');
    writeFileSync(configPath, floodRegistry(agent.url));
    const switchboard = await createSwitchboard({ configPath, databaseUrl: `sqlite:${join(dir, 'switchboard.db')}`, logger: silentLogger, env: {}, watch: false });
    const server = await startServer(switchboard.app, { port: 0, host: '127.0.0.1', streams: switchboard.streams });
    const started = performance.now();
    const events = await chatOverSse(server.url, '洪水测试 flood', { userId: 'u-flood', sessionId: 'flood-1' });
    const ms = Math.round(performance.now() - started);
    await server.close();
    await switchboard.close();
    const relayed = events.filter((event) => event.metadata.stage === 'agent_stream');
    const relayedBytes = relayed.reduce((sum, event) => sum + Buffer.byteLength(event.content, 'utf8'), 0);
    const done = events.at(-1);
    console.log(`flood agent: sent ${progress.length} progress events (${small} small + ${large} × ${Buffer.byteLength(chunk, 'utf8')} bytes), ${sentBytes} bytes`);
    console.log(`  relayed to the client: ${relayed.length} agent_stream events, ${relayedBytes} bytes; all events ${events.length}; turn ended with ${done?.type ?? 'nothing'} in ${ms} ms`);
    return { sentEvents: progress.length, relayedEvents: relayed.length };
  } finally {
    await agent.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the three probes and prints the summary line. */
export async function main(): Promise<AbuseResult> {
  console.log('== abuse probe ==');
  const corpus = await injection();
  console.log('');
  const pii = await personalData();
  console.log('');
  const stream = await flood();
  console.log('');
  const hardening = await hardeningCases();
  console.log('');
  console.log('overload, buffers and reloads:');
  const admission = await admissionCases();
  const admissionFailed = admission.filter((item) => !item.pass).map((item) => item.name);
  console.log('');
  console.log('secrets in disguise and split across agents (bench/guard-cases.ts):');
  const guarded = await guardCases();
  const guardLeaks = guarded.reduce((sum, item) => sum + item.leaked, 0);
  const hardLeaks = hardening.reduce((sum, item) => sum + item.leaked, 0);
  const slowCases = hardening.filter((item) => !(item.p99HealthMs < 200)).map((item) => item.name);
  console.log('');
  const result: AbuseResult = {
    pass: corpus.leaked === 0 && corpus.extra === 0 && corpus.forwarded === 0 && pii.raw === 0 && hardLeaks === 0 && slowCases.length === 0 && admissionFailed.length === 0 && guardLeaks === 0,
    tried: corpus.tried + pii.tried + 1 + hardening.length + admission.length + guarded.length,
    leaked: corpus.leaked + corpus.forwarded + hardLeaks + guardLeaks,
    extraCalls: corpus.extra,
    masked: pii.masked,
    unmasked: pii.raw,
  };
  console.log(
    `abuse summary: tried ${result.tried} (injection turns ${corpus.tried}, personal-data kinds ${pii.tried}, flood 1, hardening ${hardening.length}; hardening leaks ${hardLeaks}, /healthz p99 ≥ 200 ms in: ${slowCases.join(', ') || 'none'}; overload/buffer/reload cases failed: ${admissionFailed.join(', ') || 'none'}; guard cases ${guarded.length}, leaks ${guardLeaks}) / leaked ${result.leaked} / extra calls ${result.extraCalls} / masked ${result.masked} / unmasked ${result.unmasked}; flood relayed ${stream.relayedEvents} of ${stream.sentEvents} events — ${result.pass ? 'PASS' : 'FAIL'}`,
  );
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await main();
  process.exitCode = result.pass ? 0 : 1;
}
