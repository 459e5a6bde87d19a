/**
 * Memory layers and caches, measured on zero-latency fakes (a scripted
 * OpenAI-compatible server and fake sub-agents over real HTTP, the real
 * gateway, graph, SQLite and SSE):
 *
 * (a) prompt tokens of the turn (the gateway's CJK-aware estimates; the fake
 *     sends no usage) and the turn's wall time at turn 10, 100 and 1000 of
 *     one LLM-mode session: the layered summary keeps them flat (target:
 *     turn 1000 ≤ 1.2 × turn 10);
 * (b) the weather agent answering in 200 ms: the first ask of a city and day
 *     against the same question from another session of another user,
 *     answered from the response cache (answer cache off: the agent is not
 *     called, the model writes the answer) and from the answer cache (no
 *     agent and no model call);
 * (c) model calls per business turn: single intent (verify skipped), two
 *     intents (clean: no judging call), a "nothing found" retry (verify + re-send).
 *
 * Run: `npx tsx bench/memory-and-caches.ts` (`npm run bench` runs it too).
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { ResponseState } from '../src/events/index.js';
import { createLlmGateway } from '../src/llm/index.js';
import { silentLogger } from '../src/logger.js';
import { jsonReply, sseReply, startFakeAgent } from '../test/support/fake-agent.js';
import { startFakeOpenAI, type RecordedRequest, type ScriptedReplySpec } from '../test/support/fake-openai.js';
import { sampleRegistry, startTestSwitchboard } from '../test/support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const CITIES = ['北京', '上海', '广州', '深圳', '杭州', '成都'];

function finalState(events: readonly ResponseState[]): { llm: { calls: number; prompt_tokens: number } } {
  const final = events.find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true);
  return final!.metadata.state as { llm: { calls: number; prompt_tokens: number } };
}

function weatherIntent(query: string, city: string, extra: Record<string, unknown> = {}): (request: RecordedRequest) => ScriptedReplySpec {
  return (request) => ({
    content: {
      kind: 'business',
      intent: ['weather_agent'],
      confidence: 'medium',
      reason: 'bench',
      rewritten_query: query,
      user_friendly_message: '好的',
      task_plan: { sub_tasks: [{ task_id: 't1', description: query, assigned_agent: 'weather_agent', inputs: { city }, dependencies: [] }] },
      ...(request.messages[1]!.content.includes('also return memory_summary') ? { memory_summary: '用户在连续查询各城市的天气，没有未完成的请求。' } : {}),
      ...extra,
    },
    usage: false,
  });
}

async function startBench(weatherDelayMs: number, options: { nothingFirst?: boolean; answerCacheTtlS?: number } = {}) {
  const { nothingFirst = false } = options;
  let weatherCalls = 0;
  const weather = await startFakeAgent((body) => {
    weatherCalls += 1;
    const city = (body as { inputs: { city: string } }).inputs.city;
    if (nothingFirst && weatherCalls === 1) return sseReply({ delayMs: weatherDelayMs, result: { status: 'completed', output: { city, forecast: [] }, message: '未找到天气预报。' } });
    return sseReply({ delayMs: weatherDelayMs, result: { status: 'completed', output: { city, forecast: [{ date: '2026-11-23', condition: '晴', high: 8, low: -2 }] }, message: `${city}明天晴。` } });
  });
  const others = await Promise.all([1, 2, 3].map(() => startFakeAgent(jsonReply({ output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' } }))));
  const fake = await startFakeOpenAI();
  const gateway = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', smallModel: 'fake-small', logger: silentLogger, breaker: false });
  const yaml = sampleRegistry('agents_config.yaml', { 7101: others[0]!.url, 7102: others[1]!.url, 7103: others[2]!.url, 7104: weather.url }, { answerCacheTtlS: options.answerCacheTtlS }).replace(
    /\n\s*side_effects: true[^\n]*/g,
    '',
  );
  const board = await startTestSwitchboard({ registryYaml: yaml, llm: gateway, now: () => NOW });
  return {
    fake,
    board,
    async close() {
      await board.close();
      gateway.close();
      await fake.close();
      await Promise.all([weather, ...others].map((agent) => agent.close()));
    },
  };
}

/** Part (a): every turn runs whole (the answer cache is off: the questions repeat a city). */
async function measureLongSession(): Promise<{ turn: number; promptTokens: number; intentPromptChars: number; turnMs: number }[]> {
  const bench = await startBench(0, { answerCacheTtlS: 0 });
  const rows: { turn: number; promptTokens: number; intentPromptChars: number; turnMs: number }[] = [];
  try {
    for (let turn = 1; turn <= 1000; turn += 1) {
      const city = CITIES[turn % CITIES.length]!;
      const query = `第${turn}次：${city}明天天气怎么样`;
      let intentChars = 0;
      const intent = weatherIntent(query, city);
      bench.fake.push((request) => {
        intentChars = request.messages.reduce((sum, message) => sum + message.content.length, 0);
        return intent(request);
      }, { content: `${city}明天晴。`, usage: false });
      const started = performance.now();
      const events = await bench.board.chat(query, { sessionId: 'bench-long' });
      const turnMs = performance.now() - started;
      if (turn === 10 || turn === 100 || turn === 1000) rows.push({ turn, promptTokens: finalState(events).llm.prompt_tokens, intentPromptChars: intentChars, turnMs });
    }
    bench.fake.assertComplete();
  } finally {
    await bench.close();
  }
  return rows;
}

/**
 * Part (b): one miss, then the same question from another session of another user, on one board per
 * cache. The intent is a confident one, so the repeat's intent comes from the intent cache.
 */
async function measureCacheHit(): Promise<{ missMs: number; responseHitMs: number; answerHitMs: number; answerHitCalls: number }> {
  const query = '北京明天天气怎么样';
  const timed = async (bench: Awaited<ReturnType<typeof startBench>>, sessionId: string) => {
    const started = performance.now();
    const events = await bench.board.chat(query, { sessionId, userId: sessionId });
    const ms = performance.now() - started;
    const replyCached = events.find((event) => event.metadata.stage === 'agent_done')?.metadata.state?.cached === true;
    const answerCached = events.find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true)?.metadata.state?.cached === true;
    return { ms, replyCached, answerCached, calls: finalState(events).llm?.calls ?? 0 };
  };
  const replies = await startBench(200, { answerCacheTtlS: 0 });
  let missMs: number;
  let responseHitMs: number;
  try {
    replies.fake.push(weatherIntent(query, '北京', { confidence: 'high' }), { content: '北京明天晴。', usage: false }, { content: '北京明天晴。', usage: false });
    const miss = await timed(replies, 'bench-cache-1');
    const hit = await timed(replies, 'bench-cache-2');
    if (miss.replyCached || !hit.replyCached) throw new Error('expected a miss then a response cache hit');
    replies.fake.assertComplete();
    missMs = miss.ms;
    responseHitMs = hit.ms;
  } finally {
    await replies.close();
  }
  const answers = await startBench(200);
  try {
    answers.fake.push(weatherIntent(query, '北京', { confidence: 'high' }), { content: '北京明天晴。', usage: false });
    const miss = await timed(answers, 'bench-cache-3');
    const hit = await timed(answers, 'bench-cache-4');
    if (miss.answerCached || !hit.answerCached) throw new Error('expected a miss then an answer cache hit');
    answers.fake.assertComplete();
    return { missMs, responseHitMs, answerHitMs: hit.ms, answerHitCalls: hit.calls };
  } finally {
    await answers.close();
  }
}

/** Part (c). */
async function measureCalls(): Promise<{ turn: string; calls: number }[]> {
  const rows: { turn: string; calls: number }[] = [];
  const single = await startBench(0);
  try {
    single.fake.push(weatherIntent('北京明天天气怎么样', '北京'), { content: '北京明天晴。', usage: false });
    rows.push({ turn: 'single intent (verify skipped)', calls: finalState(await single.board.chat('北京明天天气怎么样', { sessionId: 'c1' })).llm.calls });
    const both = '帮我订北京的酒店，明天入住，再告诉我北京明天的天气';
    single.fake.push(
      {
        content: {
          kind: 'business', intent: ['hotel_agent', 'weather_agent'], confidence: 'medium', reason: 'bench', rewritten_query: both, user_friendly_message: '好的',
          task_plan: { sub_tasks: [
            { task_id: 't1', description: '订酒店', assigned_agent: 'hotel_agent', inputs: { city: '北京', check_in_date: '2026-11-23' }, dependencies: [] },
            { task_id: 't2', description: '查天气', assigned_agent: 'weather_agent', inputs: { city: '北京' }, dependencies: [] },
          ] },
        },
        usage: false,
      },
      { content: '北京饭店已订好，北京明天晴。', usage: false },
    );
    rows.push({ turn: 'two intents (clean: no judging call)', calls: finalState(await single.board.chat(both, { sessionId: 'c2' })).llm.calls });
    single.fake.assertComplete();
  } finally {
    await single.close();
  }
  const retry = await startBench(0, { nothingFirst: true });
  try {
    retry.fake.push(
      weatherIntent('上海明天天气怎么样', '上海'),
      (request) => ({ content: { sufficient: false, retry: [{ task_id: /task_id: (\S+) \|/.exec(request.messages[1]!.content)![1]!, revised_message: '查询上海明天的天气预报' }], reason: '无结果' }, usage: false }),
      { content: '上海明天晴。', usage: false },
    );
    rows.push({ turn: '"nothing found" → verify + one re-send', calls: finalState(await retry.board.chat('上海明天天气怎么样', { sessionId: 'c3' })).llm.calls });
    retry.fake.assertComplete();
  } finally {
    await retry.close();
  }
  return rows;
}

export async function main(): Promise<{ pass: boolean }> {
  const long = await measureLongSession();
  console.log('(a) one LLM-mode session, zero-latency fakes');
  console.log('turn | prompt tokens (intent + answer) | intent prompt chars | turn ms');
  for (const row of long) console.log(`${row.turn} | ${row.promptTokens} | ${row.intentPromptChars} | ${row.turnMs.toFixed(1)}`);
  const ratio = long[2]!.promptTokens / long[0]!.promptTokens;
  console.log(`turn 1000 / turn 10 prompt tokens: ${ratio.toFixed(3)} (target ≤ 1.2)`);
  const cache = await measureCacheHit();
  console.log(`(b) weather agent 200 ms: first ask ${cache.missMs.toFixed(1)} ms; same question, another session and user:`);
  console.log(`    response cache hit (answer cache off) ${cache.responseHitMs.toFixed(1)} ms; answer cache hit ${cache.answerHitMs.toFixed(1)} ms with ${cache.answerHitCalls} model calls`);
  const calls = await measureCalls();
  console.log('(c) model calls per business turn');
  for (const row of calls) console.log(`${row.turn}: ${row.calls}`);
  const pass =
    ratio <= 1.2 &&
    calls[0]!.calls <= 2 &&
    calls.slice(1).every((row) => row.calls <= 3) &&
    cache.responseHitMs < cache.missMs &&
    cache.answerHitMs < cache.responseHitMs &&
    cache.answerHitCalls === 0;
  console.log(pass ? 'memory-and-caches: targets met' : 'memory-and-caches: a target was missed');
  return { pass };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await main();
  process.exitCode = result.pass ? 0 : 1;
}
