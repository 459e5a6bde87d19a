import { afterEach, describe, expect, it, vi } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function chat(baseUrl: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
}

const basic = { model: 'fake-main', messages: [{ role: 'user', content: 'hello' }] };

describe('startFakeOpenAI', () => {
  it('serves replies in order and records each request', async () => {
    fake = await startFakeOpenAI({ replies: ['first', { content: { ok: true }, usage: { prompt_tokens: 5, completion_tokens: 2 } }] });
    expect(fake.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const first = await (await chat(fake.baseUrl, basic)).json();
    const second = await (await chat(fake.baseUrl, { ...basic, response_format: { type: 'json_object' } })).json();
    expect(first.choices[0].message.content).toBe('first');
    expect(first.usage.prompt_tokens).toBeGreaterThan(0);
    expect(second.choices[0].message.content).toBe('{"ok":true}');
    expect(second.usage).toEqual({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
    expect(fake.requests.map((request) => request.index)).toEqual([0, 1]);
    expect(fake.requests[1]).toMatchObject({ model: 'fake-main', stream: false, response_format: { type: 'json_object' }, messages: basic.messages });
    fake.assertComplete();
  });

  it('answers an unexpected call with 500 and fails assertComplete', async () => {
    fake = await startFakeOpenAI({ replies: [] });
    const response = await chat(fake.baseUrl, basic);
    expect(response.status).toBe(500);
    expect((await response.json()).error.message).toMatch(/no scripted reply left/);
    expect(fake.requests).toHaveLength(1);
    expect(() => fake!.assertComplete()).toThrow(/unexpected chat completion request #1/);
  });

  it('fails assertComplete when replies are left unused', async () => {
    fake = await startFakeOpenAI({ replies: ['a', 'b'] });
    await chat(fake.baseUrl, basic);
    expect(fake.remaining()).toBe(1);
    expect(() => fake!.assertComplete()).toThrow(/1 scripted reply was never requested/);
    fake.push('c');
    expect(() => fake!.assertComplete()).toThrow(/2 scripted replies were never requested/);
  });

  it('passes the request to a matcher reply', async () => {
    fake = await startFakeOpenAI({ replies: [(request) => `you said ${request.messages.at(-1)!.content}`] });
    const body = await (await chat(fake.baseUrl, basic)).json();
    expect(body.choices[0].message.content).toBe('you said hello');
    fake.assertComplete();
  });

  it('records a matcher that throws as an error', async () => {
    fake = await startFakeOpenAI({
      replies: [
        () => {
          throw new Error('expected a plan request');
        },
      ],
    });
    expect((await chat(fake.baseUrl, basic)).status).toBe(500);
    expect(() => fake!.assertComplete()).toThrow(/matcher for request #1 threw: expected a plan request/);
  });

  it('streams SSE chunks, a usage chunk when asked, and [DONE]', async () => {
    fake = await startFakeOpenAI({ replies: [{ streamChunks: ['一', '二三'], usage: { prompt_tokens: 3, completion_tokens: 3 } }] });
    const response = await chat(fake.baseUrl, { ...basic, stream: true, stream_options: { include_usage: true } });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const text = await response.text();
    const data = text.split('\n\n').filter(Boolean).map((event) => event.replace(/^data: /, ''));
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((line) => JSON.parse(line));
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? null)).toEqual(['', '一', '二三', null, null]);
    expect(chunks[3].choices[0].finish_reason).toBe('stop');
    expect(chunks[4]).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 } });
    fake.assertComplete();
  });

  it('answers scripted faults', async () => {
    fake = await startFakeOpenAI({
      replies: [
        { status: 429, retryAfter: 2 },
        { status: 500, errorMessage: 'kaput' },
        { malformed: true },
        { rejectResponseFormat: true },
        { rejectResponseFormat: true },
      ],
    });
    const limited = await chat(fake.baseUrl, basic);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    const failed = await chat(fake.baseUrl, basic);
    expect(failed.status).toBe(500);
    expect((await failed.json()).error.message).toBe('kaput');
    const malformed = await chat(fake.baseUrl, basic);
    expect(malformed.status).toBe(200);
    await expect(malformed.json()).rejects.toThrow();
    const rejected = await chat(fake.baseUrl, { ...basic, response_format: { type: 'json_schema', json_schema: { name: 'x', schema: {} } } });
    expect(rejected.status).toBe(400);
    expect((await rejected.json()).error).toMatchObject({ param: 'response_format', message: expect.stringMatching(/'json_schema' is not supported/) });
    // A reject scripted for a request that sent no response_format is a script error.
    expect((await chat(fake.baseUrl, basic)).status).toBe(500);
    expect(() => fake!.assertComplete()).toThrow(/scripted to reject response_format but sent none/);
  });

  it('holds a hanging reply until the client aborts', async () => {
    fake = await startFakeOpenAI({ replies: [{ hang: true }, 'after'] });
    const controller = new AbortController();
    const pending = chat(fake.baseUrl, basic, controller.signal);
    await vi.waitFor(() => expect(fake!.requests).toHaveLength(1));
    controller.abort();
    await expect(pending).rejects.toThrow();
    const next = await (await chat(fake.baseUrl, basic)).json();
    expect(next.choices[0].message.content).toBe('after');
    fake.assertComplete();
  });

  it('lists models and records unknown routes as errors', async () => {
    fake = await startFakeOpenAI({ models: ['a', 'b'] });
    const models = await (await fetch(`${fake.baseUrl}/models`)).json();
    expect(models.data.map((model: { id: string }) => model.id)).toEqual(['a', 'b']);
    fake.assertComplete();
    expect((await fetch(`${fake.baseUrl}/embeddings`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect(() => fake!.assertComplete()).toThrow(/unexpected POST \/v1\/embeddings/);
  });

  it('rejects a body that is not JSON', async () => {
    fake = await startFakeOpenAI({ replies: ['unused'] });
    const response = await fetch(`${fake.baseUrl}/chat/completions`, { method: 'POST', body: 'nope' });
    expect(response.status).toBe(400);
    expect(() => fake!.assertComplete()).toThrow(/request body is not JSON/);
  });

  it('closes even with a hanging connection, and twice without error', async () => {
    fake = await startFakeOpenAI({ replies: [{ hang: true }] });
    const pending = chat(fake.baseUrl, basic).catch((error: unknown) => error);
    await vi.waitFor(() => expect(fake!.requests).toHaveLength(1));
    await fake.close();
    await fake.close();
    expect(await pending).toBeInstanceOf(Error);
  });
});
