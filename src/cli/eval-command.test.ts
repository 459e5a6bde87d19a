import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from './eval-command.js';
import { startFakeOpenAI } from '../../test/support/fake-openai.js';
import { startFakeEmbeddings } from '../../test/support/fake-embeddings.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Accuracy floors for the sample sets: a routing regression below them fails CI. */
const TRAVEL_MIN = '0.90';
const ECOMMERCE_MIN = '0.85';
/** The English assistant set: keyword-free cards, paraphrases that share few words with the examples. */
const ASSISTANT_MIN = '0.75';
/**
 * Dialogue floors (docs/api.md#commands): the share of the sample dialogues that pass whole, offline.
 * Set at what passes; the dialogues that fail are written for the contract's behaviour and named in the report.
 */
const DIALOGUE_FLOORS: [set: string, config: string, min: number][] = [
  ['examples/travel/dialogues.jsonl', 'agents_config.yaml', 1],
  ['examples/ecommerce/dialogues.jsonl', 'examples/ecommerce/agents_config.yaml', 0.9],
  ['examples/assistant/dialogues.jsonl', 'examples/assistant/agents_config.yaml', 1],
];

function capture(env: Record<string, string> = {}) {
  const out = { stdout: '', stderr: '' };
  const io = { stdout: (text: string) => (out.stdout += text), stderr: (text: string) => (out.stderr += text), env, cwd: ROOT };
  return { out, io };
}

describe('switchboard eval', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-eval-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('meets its floor on the travel sample set (offline)', async () => {
    const { out, io } = capture();
    const code = await runCommand(['examples/travel/eval.jsonl', '--min', TRAVEL_MIN], io);
    expect(out.stderr).toBe('');
    expect(code).toBe(0);
    expect(out.stdout).toMatch(/exact agent-set accuracy\s+\d+\.\d%/);
    expect(out.stdout).toMatch(/out of scope kept out/);
    expect(out.stdout).toMatch(/hotel_agent\s+\d+\.\d%\s+\d+\.\d%/);
  });

  it('meets its floor on the e-commerce sample set, as JSON', async () => {
    const { out, io } = capture();
    const code = await runCommand(['examples/ecommerce/eval.jsonl', '--config', 'examples/ecommerce/agents_config.yaml', '--min', ECOMMERCE_MIN, '--json'], io);
    expect(code).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report).toMatchObject({ mode: 'offline', enabled_agents: 5, pass: true });
    expect(report.total).toBeGreaterThanOrEqual(80);
    expect(report.accuracy).toBeGreaterThanOrEqual(Number(ECOMMERCE_MIN));
    expect(report.agents.map((agent: { agent: string }) => agent.agent)).toContain('refund_agent');
    // Both peers run in the same command; the recogniser no longer loses to nearest-example here.
    expect(report.top1).toBeGreaterThanOrEqual(report.baselineTop1);
    expect(report.linearTop1).toBeGreaterThan(0.5);
    expect(report.inScopeNoAgent).toBeLessThanOrEqual(0.09);
  });

  it('with an embeddings endpoint, prints a second report with word meaning fused in and what it cost per turn', async () => {
    const fake = await startFakeEmbeddings();
    try {
      const { out, io } = capture({ EMBEDDINGS_BASE_URL: fake.baseUrl, EMBEDDINGS_MODEL: 'concepts' });
      expect(await runCommand(['examples/travel/eval.jsonl', '--json'], io)).toBe(0);
      const report = JSON.parse(out.stdout);
      expect(report.embeddings).toMatchObject({ model: 'concepts', cardsEmbedded: true, fallbacks: 0 });
      expect(report.embeddings.report.total).toBe(report.total);
      // The fake's concept space joins "umbrella" and "rain": lines lexical routing leaves with no agent get one.
      expect(report.embeddings.report.inScopeNoAgent).toBeLessThan(report.inScopeNoAgent);
      expect(report.embeddings.callsPerTurn).toBeLessThanOrEqual(1);
      const text = capture({ EMBEDDINGS_BASE_URL: fake.baseUrl, EMBEDDINGS_MODEL: 'concepts' });
      expect(await runCommand(['examples/travel/eval.jsonl'], text.io)).toBe(0);
      expect(text.out.stdout).toMatch(/--- with embeddings \(concepts; cards embedded in \d+ ms; per turn/);
      expect(text.out.stdout).toMatch(/linear n-gram classifier \d+\.\d%/);
    } finally {
      await fake.close();
    }
  });

  it('meets its floor on the keyword-free assistant set', async () => {
    const { out, io } = capture();
    const code = await runCommand(['examples/assistant/eval.jsonl', '--config', 'examples/assistant/agents_config.yaml', '--min', ASSISTANT_MIN, '--json'], io);
    expect(code).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report).toMatchObject({ enabled_agents: 16, pass: true });
    expect(report.outOfScopeKeptOut).toBeGreaterThanOrEqual(0.8);
    // The peer run in the same command: the recogniser must beat nearest-example on the keyword-free set.
    expect(report.baselineTop1).toBeGreaterThan(0.3);
    expect(report.top1).toBeGreaterThan(report.baselineTop1);
    // And no longer loses to the linear n-gram classifier trained on the same examples (decision 0032).
    expect(report.top1).toBeGreaterThanOrEqual(report.linearTop1);
  });

  it('the sample dialogues (zh and en) meet their floors through the real supervisor turn against recording stubs (offline)', async () => {
    let total = 0;
    for (const [set, config, min] of DIALOGUE_FLOORS) {
      const { out, io } = capture();
      const code = await runCommand([set, '--config', config, '--min', String(min), '--json'], io);
      const report = JSON.parse(out.stdout);
      expect(report.dialogues.share, `${set}: ${JSON.stringify(report.dialogues.failures)}`).toBeGreaterThanOrEqual(min);
      expect(code, out.stderr).toBe(0);
      expect(report.dialogues.checks).toBeGreaterThan(report.dialogues.dialogues);
      total += report.dialogues.dialogues;
    }
    expect(total).toBeGreaterThanOrEqual(60);
  }, 120_000);

  it('a failing dialogue is reported at its first failing turn, and --min applies to whole dialogues', async () => {
    const file = join(dir, 'dialogue.jsonl');
    const dialogue = {
      name: 'wrong city',
      today: '2026-11-22',
      dialogue: [
        { user: '帮我订北京的酒店，明天入住', expect: { held: ['hotel_agent'], not_called: ['hotel_agent'] } },
        { user: '确认', expect: { inputs: { hotel_agent: { city: '上海' } } } },
        { user: '谢谢', expect: { agents: [] } },
      ],
    };
    await writeFile(file, `${JSON.stringify(dialogue)}\n`);
    const { out, io } = capture();
    expect(await runCommand([file, '--min', '0.5'], io)).toBe(1);
    expect(out.stdout).toMatch(/passed whole: 0\/1 \(0\.0%\)/);
    expect(out.stdout).toMatch(/line 1 \(wrong city\), turn 2: "确认"\n\s+inputs hotel_agent: expected \{"city":"上海"\}, got \[\{"city":"北京","check_in_date":"2026-11-23"\}\]/);
    expect(out.stderr).toMatch(/0\.0% of dialogues pass whole, below --min 50\.0%/);
  }, 60_000);

  it('exits 1 below --min and names the shortfall', async () => {
    const file = join(dir, 'hard.jsonl');
    await writeFile(file, '{"query":"帮我订北京的酒店","agents":["weather_agent"]}\n');
    const { out, io } = capture();
    expect(await runCommand([file, '--min', '0.9'], io)).toBe(1);
    expect(out.stderr).toMatch(/accuracy 0\.0% is below --min 90\.0%/);
    expect(out.stdout).toMatch(/line 1: 帮我订北京的酒店\n\s+expected \[weather_agent\]  got \[hotel_agent\]/);
  });

  it('rejects a set with bad lines, naming each, and runs nothing', async () => {
    const file = join(dir, 'bad.jsonl');
    await writeFile(file, '{"query":"ok","agents":[]}\n{"query":"x","agents":["nope_agent"]}\n{oops\n');
    const { out, io } = capture();
    expect(await runCommand([file, '--json'], io)).toBe(1);
    expect(out.stderr).toMatch(/bad\.jsonl:2: "agents": unknown agent "nope_agent"/);
    expect(out.stderr).toMatch(/bad\.jsonl:3: not valid JSON/);
    expect(JSON.parse(out.stdout).error.code).toBe('EVAL_SET_INVALID');
  });

  it('exits 2 on usage mistakes', async () => {
    for (const args of [[], ['a.jsonl', 'b.jsonl'], ['a.jsonl', '--min', '2'], ['a.jsonl', '--min', 'x'], ['a.jsonl', '--bogus']]) {
      const { io } = capture();
      expect(await runCommand(args, io)).toBe(2);
    }
  });

  it('exits 1 when the set or the registry cannot be read', async () => {
    const missing = capture();
    expect(await runCommand([join(dir, 'missing.jsonl')], missing.io)).toBe(1);
    expect(missing.out.stderr).toMatch(/cannot read .*missing\.jsonl: no such file$/m);
    const folder = capture();
    expect(await runCommand([dir], folder.io)).toBe(1);
    expect(folder.out.stderr).toContain(`cannot read ${dir}: a directory, not a file`);
    const badConfig = capture();
    expect(await runCommand(['examples/travel/eval.jsonl', '--config', join(dir, 'nope.yaml')], badConfig.io)).toBe(1);
    expect(badConfig.out.stderr).toMatch(/registry .*nope\.yaml is invalid/);
  });

  it('on keyword-free cards, two requests in one sentence each get their agent and their own value', async () => {
    const config = join(dir, 'keyword-free.yaml');
    const cities = '[paris, london, rome, berlin, madrid, tokyo, oslo, vienna]';
    const cardYaml = (id: string, name: string, examples: string[], port: number) =>
      [
        `  - id: ${id}`,
        `    name: "${name}"`,
        `    description: "${name} for a city"`,
        `    examples: ${JSON.stringify(examples)}`,
        '    required_semantic_keys:',
        `      - { key: city, description: city, extract: { enum: ${cities} } }`,
        `    endpoint: { url: "http://127.0.0.1:${port}/invoke", protocol: http-json }`,
      ].join('\n');
    await writeFile(
      config,
      [
        'version: 1',
        'agents:',
        cardYaml('weather_agent', 'Weather', ["what's the weather in paris tomorrow", 'will it rain in london', 'how hot is it in rome today', 'forecast for berlin this weekend', 'is it sunny in madrid', 'weather report for tokyo'], 7501),
        cardYaml('hotel_agent', 'Hotel booking', ['book a room in paris for two nights', 'reserve accommodation in london', 'find me a place to stay in rome', 'i need lodging in berlin friday', 'get me a room in madrid', 'reserve a suite in tokyo'], 7502),
      ].join('\n'),
    );
    const file = join(dir, 'keyword-free.jsonl');
    const inputs = { weather_agent: { city: 'oslo' }, hotel_agent: { city: 'vienna' } };
    await writeFile(
      file,
      [
        { query: "what's the weather in oslo tomorrow, and also reserve a room in vienna", agents: ['weather_agent', 'hotel_agent'], inputs },
        { query: 'reserve a room in vienna and tell me the weather in oslo', agents: ['weather_agent', 'hotel_agent'], inputs },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    const { out, io } = capture();
    expect(await runCommand([file, '--config', config, '--json'], io)).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report.misses).toEqual([]);
    expect(report.values).toEqual({ correct: 4, total: 4, accuracy: 1 });
  });

  describe('in LLM mode (a real OpenAI-compatible HTTP server)', () => {
    const lines = [
      { query: '北京明天天气怎么样', agents: ['weather_agent'] },
      { query: '帮我订一家上海的酒店，后天入住', agents: ['hotel_agent'] },
      { query: '给我讲个笑话吧', agents: [] },
      // Offline routes nothing here (no word in common with any example); only the model's answer gets it right.
      { query: 'should I bring an umbrella to Shanghai tomorrow', agents: ['weather_agent'] },
    ];
    let file: string;
    beforeAll(async () => {
      file = join(dir, 'llm.jsonl');
      await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    });

    it('routes as the model says and counts the lines the model decided', async () => {
      const model = await startFakeOpenAI();
      // The model names the labelled agents of the query it is shown: what it says must be what is scored.
      model.answerAll((request) => {
        // The query is in the last user message (the cards, with their examples, are in the system prompt).
        const text = request.messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
        const line = lines.find((entry) => text.includes(entry.query));
        if (!line || line.agents.length === 0) {
          return { content: { kind: 'simple', simple_kind: 'out_of_scope', intent: [], confidence: 'high', rewritten_query: line?.query ?? '', user_friendly_message: '-', answer: '-' } };
        }
        const subTasks = line.agents.map((agent, index) => ({ task_id: `task_${index + 1}`, description: agent, assigned_agent: agent, inputs: {}, dependencies: [] }));
        return { content: { kind: 'business', intent: line.agents, confidence: 'high', reason: 'labelled', rewritten_query: line.query, user_friendly_message: '-', task_plan: { task_type: 'parallel', sub_tasks: subTasks, reasoning: '-' } } };
      });
      try {
        const { out, io } = capture({ LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'fake', LLM_API_KEY: 'k' });
        expect(await runCommand([file, '--json'], io)).toBe(0);
        const report = JSON.parse(out.stdout);
        expect(report.mode).toBe("llm");
        expect(report.misses).toEqual([]);
        expect(report.accuracy).toBe(1);
        expect(report.decidedBy.model).toBeGreaterThanOrEqual(3);
        expect(report.decidedBy.fallback ?? 0).toBe(0);
        expect(model.requests.length).toBeGreaterThanOrEqual(2);
      } finally {
        await model.close();
      }
    });

    it('a model that fails every call still gets a report, which says the offline recogniser decided', async () => {
      const model = await startFakeOpenAI();
      model.answerAll(() => ({ status: 500 }));
      try {
        const { out, io } = capture({ LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'fake', LLM_API_KEY: 'k' });
        expect(await runCommand([file], io)).toBe(0);
        expect(out.stdout).toMatch(/llm mode/);
        expect(out.stdout).toMatch(/decided by\s+model 0, word rules \d+, intent cache \d+, offline after a model failure [1-9]/);
      } finally {
        await model.close();
      }
    });
  });
});

