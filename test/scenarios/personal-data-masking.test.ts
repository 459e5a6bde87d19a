/**
 * docs/api.md#personal-data: a scripted session full of personal data (mobile, ID card,
 * bank card, e-mail and a registry-declared member number, some of them as
 * JSON numbers in a sub-agent's output, one split across two streamed
 * progress chunks next to the agent's own header secret, also split);
 * afterwards the whole log output and every database file are searched for
 * each raw value and each fragment. The sub-agent must still have received the
 * real values of every key it declared, and the stored task records hold them
 * masked whatever the key's type.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/http/index.js';
import { createLogger } from '../../src/logger.js';
import { createPiiMasking } from '../../src/privacy/index.js';
import { createSwitchboard, type Switchboard } from '../../src/switchboard.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { createLlmGateway, type OpenAiCompatibleGateway } from '../../src/llm/index.js';
import { silentLogger } from '../../src/logger.js';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../support/fake-openai.js';
import { chatOverSse, finalEvent, sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const RAW = {
  mobile: '13812345678',
  idCard: '11010519491231002X',
  bankCard: '6222021234567890128',
  email: 'zhang.san@example.com',
  member: 'M20261122',
};

/** Personal values a sub-agent returns as JSON numbers. */
const NUMBERS = { mobile: 13912345678, amexCard: 378282246310005 };

/** The progress agent's header secret; it echoes it, split across two chunks. */
const PROGRESS_TOKEN = 'sk-live-7f3a9b2c4d';

/** Pieces that would be stored if a streamed value were split between two events. */
const FRAGMENTS = ['1381234', '7f3a9b2c4d', 'sk-live'];

function registry(url: string, progressUrl: string): string {
  return `version: 1
supervisor:
  pii_patterns: [{ name: member_no, pattern: "M[0-9]{8}" }]
agents:
  - id: contact_agent
    name: 会员登记
    description: 会员资料登记 register a member's contact details
    keywords: [登记, 会员, register]
    endpoint: { url: "${url}", retries: 0 }
    required_semantic_keys:
      - { key: phone, description: 手机号, extract: { type: phone } }
      - { key: email, description: 邮箱, extract: { type: email } }
      - { key: id_no, description: 身份证号, extract: { pattern: "身份证[ ]*([0-9]{17}[0-9Xx])" } }
      - { key: card_no, description: 银行卡号, extract: { pattern: "银行卡[ ]*([0-9]{16,19})" } }
  - id: progress_agent
    name: 工单进度
    description: 工单进度查询 ticket progress
    keywords: [工单, 进度, ticket]
    endpoint:
      url: "${progressUrl}"
      protocol: http-sse
      retries: 0
      headers: { X-Api-Key: "\${PROGRESS_TOKEN}" }
`;
}

describe('personal data never lands raw in logs or the database', () => {
  let dir: string;
  let agent: FakeAgent;
  let progress: FakeAgent;
  let switchboard: Switchboard;
  let server: RunningServer;
  const logLines: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-pii-'));
    agent = await startFakeAgent((body) =>
      jsonReply({ output: { registered: true, echo: JSON.stringify(body), mobile_number: NUMBERS.mobile, amex_card: NUMBERS.amexCard }, message: `已登记 ${RAW.mobile} / ${RAW.email}，身份证 ${RAW.idCard}，卡 ${RAW.bankCard}，会员 ${RAW.member}` }),
    );
    progress = await startFakeAgent(
      sseReply({
        progress: [`已收到，联系电话 ${RAW.mobile.slice(0, 7)}`, `${RAW.mobile.slice(7)}，校验 ${PROGRESS_TOKEN.slice(0, 8)}`, `${PROGRESS_TOKEN.slice(8)} 完成，稍等…`],
        result: { status: 'completed', output: { ticket: 'T-1' }, message: '工单处理中' },
      }),
    );
    const configPath = join(dir, 'agents_config.yaml');
    writeFileSync(configPath, registry(agent.url, progress.url));
    const masking = createPiiMasking();
    const logger = createLogger({
      level: 'debug',
      masker: masking,
      destination: new Writable({ write: (chunk: Buffer, _encoding, done) => (logLines.push(chunk.toString('utf8')), done()) }),
    });
    switchboard = await createSwitchboard({ configPath, databaseUrl: `sqlite:${join(dir, 'switchboard.db')}`, logger, masking, env: { PROGRESS_TOKEN }, watch: false });
    server = await startServer(switchboard.app, { port: 0, host: '127.0.0.1', streams: switchboard.streams });
  });

  afterAll(async () => {
    await agent.close();
    await progress.close();
    if (!process.env.KEEP_PII_DIR) rmSync(dir, { recursive: true, force: true });
    else console.log('DIR', dir);
  });

  it('masks every kind in logs, transcript, events, tasks and checkpoints; the agent gets the real values', async () => {
    const session = { sessionId: 'pii-1', userId: 'u-pii' };
    const first = await chatOverSse(
      server.url,
      `帮我登记会员，手机 ${RAW.mobile}，邮箱 ${RAW.email}，身份证 ${RAW.idCard}，银行卡 ${RAW.bankCard}，会员号 ${RAW.member}`,
      session,
    );
    expect(finalEvent(first).content.length).toBeGreaterThan(0);
    expect(agent.calls).toHaveLength(1);
    const sent = agent.calls[0]!.body as { inputs: Record<string, string> };
    expect(sent.inputs).toEqual({ phone: RAW.mobile, email: RAW.email, id_no: RAW.idCard, card_no: RAW.bankCard });
    // The audit record of the dispatch keeps every declared value masked, whatever the key's type.
    const [task] = await switchboard.storage.tasks.listTasks(String(first[0]!.metadata.turn_id));
    expect(task!.inputs).toEqual({ phone: '138****5678', email: 'zh***@example.com', id_no: '110105********002X', card_no: '6222***********0128' });
    await chatOverSse(server.url, `转人工，我的卡号是 ${RAW.bankCard}`, session);

    // A streamed progress message splits a phone number and the agent's own header secret between two chunks.
    const streamed = await chatOverSse(server.url, '查询工单进度', { sessionId: 'pii-2', userId: 'u-pii' });
    expect(progress.calls).toHaveLength(1);
    expect(progress.calls[0]!.headers['x-api-key']).toBe(PROGRESS_TOKEN);
    const chunks = stageEvents(streamed, 'agent_stream').map((event) => event.content);
    expect(chunks.join('')).toBe(`已收到，联系电话 ${RAW.mobile}，校验 [redacted] 完成，稍等…`);
    expect(chunks.some((chunk) => chunk.includes(RAW.mobile))).toBe(true);
    for (const chunk of chunks) expect(chunk).not.toMatch(/sk-live|7f3a9b2c4d/);

    const history = await (await fetch(`${server.url}/v1/sessions/pii-1/messages?user_id=u-pii`)).text();
    // Checkpoints may be stored in a binary encoding a byte search misses: read them back as well.
    const checkpoints: string[] = [];
    for (const thread of ['u-pii:pii-1', 'u-pii:pii-2']) {
      for await (const tuple of switchboard.storage.checkpointer.list({ configurable: { thread_id: thread } })) checkpoints.push(JSON.stringify(tuple));
    }
    expect(checkpoints.length).toBeGreaterThan(0);
    const checkpointText = checkpoints.join('\n');
    await server.close();
    await switchboard.close();

    const logText = logLines.join('');
    expect(logLines.length).toBeGreaterThan(0);
    const files = readdirSync(dir).filter((name) => name.startsWith('switchboard.db'));
    expect(files.length).toBeGreaterThan(0);
    const database = Buffer.concat(files.map((name) => readFileSync(join(dir, name))));
    for (const [kind, value] of Object.entries(RAW)) {
      expect(logText.includes(value), `${kind} raw in the logs`).toBe(false);
      expect(database.includes(Buffer.from(value, 'utf8')), `${kind} raw in the database`).toBe(false);
      expect(history.includes(value), `${kind} raw in the stored transcript`).toBe(false);
    }
    for (const [kind, value] of Object.entries({ ...RAW, ...NUMBERS })) expect(checkpointText.includes(String(value)), `${kind} raw in a checkpoint`).toBe(false);
    for (const [kind, value] of Object.entries(NUMBERS)) {
      expect(logText.includes(String(value)), `${kind} (a number) raw in the logs`).toBe(false);
      expect(database.includes(Buffer.from(String(value), 'utf8')), `${kind} (a number) raw in the database`).toBe(false);
    }
    for (const fragment of FRAGMENTS) {
      expect(logText.includes(fragment), `${fragment} in the logs`).toBe(false);
      expect(database.includes(Buffer.from(fragment, 'utf8')), `${fragment} in the database`).toBe(false);
    }
    expect(history).toContain('138****5678');
    expect(history).toContain('M2*****22');
  });
});

/**
 * Parked tasks (docs/api.md#conversation-rules, docs/api.md#personal-data): a member registration that still misses
 * a key and a booking (a side effect) that waits for the user's yes both park
 * with a phone number in their inputs. While parked, and after they ran, no
 * table, WAL file or log line holds the raw phone; when they run, the agent
 * receives the real phone it declared.
 */
describe('parked tasks keep personal values sealed until they run', () => {
  const PHONES = { member: '13912345678', booking: '13787654321' };
  let dir: string;
  let member: FakeAgent;
  let booking: FakeAgent;
  let switchboard: Switchboard;
  let server: RunningServer;
  let logger: ReturnType<typeof createLogger>;
  const logLines: string[] = [];

  const parkedRegistry = (memberUrl: string, bookingUrl: string) => `version: 1
agents:
  - id: member_agent
    name: 会员登记
    description: 会员登记 register a member at a store
    keywords: [登记, 会员]
    endpoint: { url: "${memberUrl}", retries: 0 }
    required_semantic_keys:
      - { key: phone, description: 手机号, extract: { type: phone } }
      - { key: store, description: 门店, extract: { enum: [北京店, 上海店] } }
  - id: checkup_agent
    name: 体检预约
    description: 体检预约 book a health check-up
    keywords: [体检, 预约]
    side_effects: true
    endpoint: { url: "${bookingUrl}", retries: 0 }
    required_semantic_keys:
      - { key: phone, description: 联系电话, extract: { type: phone } }
      - { key: date, description: 日期, extract: { type: date } }
`;

  /** Every database file (main, WAL, shared memory) and every log line, searched for the raw phones. */
  const rawFindings = (): string[] => {
    const found: string[] = [];
    const files = readdirSync(dir).filter((name) => name.startsWith('switchboard.db'));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      const bytes = readFileSync(join(dir, name));
      for (const phone of Object.values(PHONES)) if (bytes.includes(Buffer.from(phone, 'utf8'))) found.push(`${phone} in ${name}`);
    }
    const logText = logLines.join('');
    for (const phone of Object.values(PHONES)) if (logText.includes(phone)) found.push(`${phone} in the logs`);
    return found;
  };

  /** The stored parked tasks of a session, read straight from the `checkpoints` and `writes` tables. */
  const storedRows = (): string => {
    const database = new Database(join(dir, 'switchboard.db'), { readonly: true });
    try {
      const rows = [
        ...database.prepare('SELECT checkpoint, metadata FROM checkpoints').all(),
        ...database.prepare('SELECT value FROM writes').all(),
      ] as Record<string, Buffer | string | null>[];
      return rows.map((row) => Object.values(row).map((value) => (Buffer.isBuffer(value) ? value.toString('utf8') : String(value))).join('\n')).join('\n');
    } finally {
      database.close();
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-pii-parked-'));
    member = await startFakeAgent(jsonReply({ output: { member_id: 'MB-7' }, message: '登记成功' }));
    booking = await startFakeAgent(jsonReply({ output: { booking_id: 'CK-9' }, message: '预约成功' }));
    const configPath = join(dir, 'agents_config.yaml');
    writeFileSync(configPath, parkedRegistry(member.url, booking.url));
    const masking = createPiiMasking();
    logger = createLogger({
      level: 'debug',
      masker: masking,
      destination: new Writable({ write: (chunk: Buffer, _encoding, done) => (logLines.push(chunk.toString('utf8')), done()) }),
    });
    switchboard = await createSwitchboard({ configPath, databaseUrl: `sqlite:${join(dir, 'switchboard.db')}`, logger, masking, env: {}, dataKey: 'test-data-key-0123456789', watch: false });
    server = await startServer(switchboard.app, { port: 0, host: '127.0.0.1', streams: switchboard.streams });
  });

  afterAll(async () => {
    await server.close().catch(() => undefined);
    await switchboard.close().catch(() => undefined);
    await member.close();
    await booking.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a task missing a key parks masked and runs with the real phone once the key is given', async () => {
    const session = { sessionId: 'parked-1', userId: 'u-parked' };
    const first = await chatOverSse(server.url, `帮我登记会员，手机 ${PHONES.member}`, session);
    expect(member.calls).toHaveLength(0);
    expect(stageEvents(first, 'plan_done').flatMap((event) => event.metadata.semantic_info ?? []).flatMap((info) => info.keys)).toContain('store');
    expect(rawFindings()).toEqual([]);
    const parked = storedRows();
    expect(parked).toContain('139****5678');
    expect(parked).not.toContain(PHONES.member);

    await chatOverSse(server.url, '北京店', session);
    expect(member.calls).toHaveLength(1);
    expect((member.calls[0]!.body as { inputs: Record<string, unknown> }).inputs).toEqual({ phone: PHONES.member, store: '北京店' });
    expect(rawFindings()).toEqual([]);
  });

  it('a side effect awaiting confirmation parks masked and runs with the real phone once confirmed', async () => {
    const session = { sessionId: 'parked-2', userId: 'u-parked' };
    const first = await chatOverSse(server.url, `帮我预约2026-12-01的体检，电话 ${PHONES.booking}`, session);
    expect(booking.calls).toHaveLength(0);
    const [request] = (finalEvent(first).metadata as { confirmation?: { task_id: string }[] }).confirmation ?? [];
    expect(request).toBeDefined();
    expect(rawFindings()).toEqual([]);
    expect(storedRows()).not.toContain(PHONES.booking);

    await chatOverSse(server.url, '', { ...session, confirm: [request!.task_id] });
    expect(booking.calls).toHaveLength(1);
    expect((booking.calls[0]!.body as { inputs: Record<string, unknown> }).inputs).toEqual({ phone: PHONES.booking, date: '2026-12-01' });

    await server.close();
    await switchboard.close();
    expect(rawFindings()).toEqual([]);
    expect(storedRows()).not.toMatch(/13912345678|13787654321/);
  });

  it('without SWITCHBOARD_DATA_KEY, parked tasks survive a restart on the same database file with their real phone', async () => {
    const databaseUrl = `sqlite:${join(dir, 'restart.db')}`;
    const start = async () => {
      const instance = await createSwitchboard({ configPath: join(dir, 'agents_config.yaml'), databaseUrl, logger, env: {}, watch: false });
      return { instance, running: await startServer(instance.app, { port: 0, host: '127.0.0.1', streams: instance.streams }) };
    };
    const registration = { sessionId: 'restart-1', userId: 'u-restart' };
    const checkup = { sessionId: 'restart-2', userId: 'u-restart' };
    const [memberBefore, bookingBefore] = [member.calls.length, booking.calls.length];

    const first = await start();
    await chatOverSse(first.running.url, `帮我登记会员，手机 ${PHONES.member}`, registration);
    const asked = await chatOverSse(first.running.url, `帮我预约2026-12-03的体检，电话 ${PHONES.booking}`, checkup);
    const [request] = (finalEvent(asked).metadata as { confirmation?: { task_id: string }[] }).confirmation ?? [];
    expect(request).toBeDefined();
    await first.running.close();
    await first.instance.close();
    expect(logLines.join('')).toContain('SWITCHBOARD_DATA_KEY is not set: the key sealing personal values of parked tasks is kept in the database');

    const second = await start();
    try {
      await chatOverSse(second.running.url, '上海店', registration);
      await chatOverSse(second.running.url, '', { ...checkup, confirm: [request!.task_id] });
    } finally {
      await second.running.close();
      await second.instance.close();
    }
    expect(member.calls.slice(memberBefore).map((call) => (call.body as { inputs: unknown }).inputs)).toEqual([{ phone: PHONES.member, store: '上海店' }]);
    expect(booking.calls.slice(bookingBefore).map((call) => (call.body as { inputs: unknown }).inputs)).toEqual([{ phone: PHONES.booking, date: '2026-12-03' }]);

    const files = readdirSync(dir).filter((name) => name.startsWith('restart.db'));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      const bytes = readFileSync(join(dir, name));
      for (const phone of Object.values(PHONES)) expect(bytes.includes(Buffer.from(phone, 'utf8')), `${phone} in ${name}`).toBe(false);
    }
    const database = new Database(join(dir, 'restart.db'), { readonly: true });
    try {
      expect(database.prepare('SELECT kv_key FROM sb_kv').all()).toContainEqual({ kv_key: 'switchboard:data-key:v1' });
    } finally {
      database.close();
    }
  });
});

/**
 * docs/api.md#personal-data, prompts' memory blocks (LLM mode, strict scripted model): a
 * session whose queries, model summary and answers are full of a phone and an
 * e-mail. From the second turn on, the conversation, summary and profile
 * blocks the model receives hold those values masked, never raw; only the
 * current user message carries them as typed.
 */
describe('prompt memory blocks hold personal data masked (LLM mode)', () => {
  const PHONE = '13812345678';
  const EMAIL = 'zhang.san@example.com';
  let fake: FakeOpenAI;
  let gateway: OpenAiCompatibleGateway;
  let weather: FakeAgent;
  let board: TestSwitchboard;

  beforeAll(async () => {
    weather = await startFakeAgent(
      sseReply({ result: { status: 'completed', output: { city: '北京', forecast: [{ date: '2026-11-23', condition: '晴', high: 8, low: -2 }], notify: PHONE }, message: `北京明天晴，已通知 ${PHONE}` } }),
    );
    fake = await startFakeOpenAI();
    gateway = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', smallModel: 'fake-small', logger: silentLogger, timeoutMs: 3000, maxRetries: 0, breaker: false });
    const yaml = sampleRegistry('agents_config.yaml', { 7104: weather.url }, { answerCacheTtlS: 0 }).replace(/memory_max_history: \d+/, 'memory_max_history: 1');
    board = await startTestSwitchboard({ registryYaml: yaml, llm: gateway, now: () => new Date(2026, 10, 22, 10, 0, 0) });
  });

  afterAll(async () => {
    await board.close();
    gateway.close();
    await fake.close();
    await weather.close();
  });

  it('masks the conversation, summary and profile blocks of every intent prompt', async () => {
    const prompts: string[] = [];
    for (let index = 1; index <= 3; index += 1) {
      const query = `第${index}次：北京明天天气怎么样，结果发短信到 ${PHONE}，抄送 ${EMAIL}`;
      fake.push(
        (request: RecordedRequest) => {
          const prompt = request.messages[1]!.content;
          prompts.push(prompt);
          return {
            content: {
              kind: 'business',
              intent: ['weather_agent'],
              confidence: 'medium',
              reason: 'weather',
              rewritten_query: query,
              user_friendly_message: '好的',
              task_plan: { sub_tasks: [{ task_id: 't1', description: query, assigned_agent: 'weather_agent', inputs: { city: '北京', date: '2026-11-23' }, dependencies: [] }] },
              ...(prompt.includes('also return memory_summary') ? { memory_summary: `用户手机 ${PHONE}，邮箱 ${EMAIL}，查询北京天气。` } : {}),
            },
            usage: false,
          };
        },
        { content: `北京明天晴，已发送到 ${PHONE} 和 ${EMAIL}。`, usage: false },
      );
      await board.chat(query, { sessionId: 'pii-llm', userId: 'u-pii-llm' });
      fake.assertComplete();
    }
    expect(weather.calls.length).toBeGreaterThan(0);
    const blocks = (prompt: string) =>
      Object.fromEntries(['conversation', 'summary', 'profile', 'user_message'].map((label) => [label, new RegExp(`<<<DATA:${label}>>>\\n([\\s\\S]*?)\\n<<<END:${label}>>>`).exec(prompt)?.[1]]));
    const second = blocks(prompts[1]!);
    const third = blocks(prompts[2]!);
    // The blocks are there and hold the values masked.
    expect(second.conversation).toContain('138****5678');
    expect(second.conversation).toContain('zh***@example.com');
    expect(third.summary).toContain('138****5678');
    expect(third.profile).toContain('city=北京');
    for (const [index, prompt] of prompts.entries()) {
      for (const [label, text] of Object.entries(blocks(prompt))) {
        if (label === 'user_message' || text === undefined) continue;
        expect(text.includes(PHONE) || text.includes(EMAIL), `raw value in the ${label} block of prompt ${index + 1}`).toBe(false);
      }
      // The current message is the user's own text, as typed.
      expect(blocks(prompt).user_message).toContain(PHONE);
    }
  });
});
