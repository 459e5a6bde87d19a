import { Ajv } from 'ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../test/support/fake-openai.js';
import { silentLogger } from '../logger.js';
import { completeJson, type JsonCallOptions } from './complete-json.js';
import { createLlmGateway, type OpenAiCompatibleGateway } from './openai-gateway.js';

const SCHEMA = { type: 'object', required: ['city'], properties: { city: { type: 'string', minLength: 1 } } } as const;
const validate = new Ajv({ allErrors: true, strict: false }).compile(SCHEMA);

let fake: FakeOpenAI;
let gateway: OpenAiCompatibleGateway;

async function start(replies: Parameters<FakeOpenAI['push']>) {
  fake = await startFakeOpenAI();
  fake.push(...replies);
  gateway = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', logger: silentLogger, maxRetries: 0 });
}

afterEach(async () => {
  gateway.close();
  await fake.close();
});

function options(extra: Partial<JsonCallOptions> = {}): JsonCallOptions {
  return {
    purpose: 'test',
    tier: 'main',
    messages: [{ role: 'user', content: 'which city?' }],
    jsonSchema: { name: 'city', schema: SCHEMA as unknown as Record<string, unknown> },
    validate,
    ...extra,
  };
}

describe('completeJson', () => {
  it('returns the validated value of a reply with prose around the JSON', async () => {
    await start(['Sure: {"city": "北京"}']);
    expect(await completeJson(gateway, options())).toEqual({ ok: true, value: { city: '北京' } });
    expect(fake.requests[0]!.response_format?.type).toBe('json_schema');
    fake.assertComplete();
  });

  it('repairs an unusable reply once, showing the model its reply and the problem', async () => {
    await start(['{"city": ""}', '{"city": "上海"}']);
    const problems: string[] = [];
    const outcome = await completeJson(gateway, options({ repairs: 1, onInvalid: (_attempt, problem) => problems.push(problem) }));
    expect(outcome).toEqual({ ok: true, value: { city: '上海' } });
    expect(problems).toHaveLength(1);
    const repair = fake.requests[1]!.messages;
    expect(repair.at(-2)).toEqual({ role: 'assistant', content: '{"city": ""}' });
    expect(repair.at(-1)!.content).toContain(problems[0]!);
    fake.assertComplete();
  });

  it('gives up with invalid_reply after the repairs, and makes no call more', async () => {
    await start(['not json', '{"town": "x"}']);
    const outcome = await completeJson(gateway, options({ repairs: 1 }));
    expect(outcome).toMatchObject({ ok: false, failure: 'invalid_reply' });
    expect(fake.requests).toHaveLength(2);
    fake.assertComplete();
  });

  it('reports a failed call with the gateway reason instead of throwing', async () => {
    await start([{ status: 503 }]);
    const outcome = await completeJson(gateway, options({ repairs: 1 }));
    expect(outcome).toMatchObject({ ok: false, failure: 'call_failed', reason: 'server_error' });
    fake.assertComplete();
  });

  it('rethrows when the caller aborted', async () => {
    await start([{ hang: true }]);
    const controller = new AbortController();
    const pending = completeJson(gateway, options({ signal: controller.signal }));
    await expect.poll(() => fake.requests.length).toBe(1);
    controller.abort();
    await expect(pending).rejects.toThrow();
  });
});
