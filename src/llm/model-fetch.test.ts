import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../logger.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../test/support/fake-openai.js';
import { createLlmGateway } from './openai-gateway.js';
import { createModelFetch } from './model-fetch.js';

const messages = [
  { role: 'system' as const, content: 'You route requests.' },
  { role: 'user' as const, content: '北京明天天气' },
];

describe('the model gateway over keep-alive pools', () => {
  let fake: FakeOpenAI | undefined;
  afterEach(async () => {
    vi.unstubAllGlobals();
    await fake?.close();
    fake = undefined;
  });

  it('sends plain and streamed calls over kept-alive connections, without the global fetch', async () => {
    fake = await startFakeOpenAI({ replies: ['一', { streamChunks: ['晴', '，', '25 度'] }, '三', '四', '五'] });
    vi.stubGlobal('fetch', () => Promise.reject(new Error('the global fetch was used')));
    const gateway = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', logger: silentLogger });
    expect((await gateway.complete({ purpose: 'intent', tier: 'main', messages })).text).toBe('一');
    const deltas: string[] = [];
    const streamed = await gateway.complete({ purpose: 'answer', tier: 'main', messages, onToken: (delta) => deltas.push(delta) });
    expect(streamed.text).toBe('晴，25 度');
    expect(deltas).toEqual(['晴', '，', '25 度']);
    for (const text of ['三', '四', '五']) expect((await gateway.complete({ purpose: 'intent', tier: 'main', messages })).text).toBe(text);
    expect(fake.requests).toHaveLength(5);
    // A call sent in the same tick as the previous reply ended can find its connection not yet released and open a
    // second one (undici's pool; fetch on the global dispatcher does the same); after that both are reused.
    expect(fake.connections).toBeLessThanOrEqual(2);
    gateway.close();
    fake.assertComplete();
  });
});

describe('createModelFetch', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });
  const serve = async (handler: Parameters<typeof createServer>[1]) => {
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it('answers like fetch: status, headers, body, a followed redirect, a decoded body and a null body', async () => {
    const base = await serve((request, response) => {
      if (request.url === '/moved') {
        response.writeHead(307, { location: '/here' });
        response.end();
      } else if (request.url === '/gzip') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        response.end(gzipSync(JSON.stringify({ packed: '压缩' })));
      } else if (request.url === '/empty') {
        response.writeHead(204);
        response.end();
      } else {
        let text = '';
        request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        request.on('end', () => {
          response.writeHead(201, { 'content-type': 'application/json', 'x-echo-auth': request.headers.authorization ?? '' });
          response.end(JSON.stringify({ method: request.method, path: request.url, text }));
        });
      }
    });
    const { fetch, close } = createModelFetch();
    const headers = new Headers({ authorization: 'Bearer k', 'content-type': 'application/json' });
    const created = await fetch(`${base}/here`, { method: 'post', headers, body: '{"a":1}' });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-echo-auth')).toBe('Bearer k');
    expect(await created.json()).toEqual({ method: 'POST', path: '/here', text: '{"a":1}' });
    const redirected = await fetch(`${base}/moved`, { method: 'POST', body: 'b' });
    expect(await redirected.json()).toMatchObject({ path: '/here', text: 'b' });
    expect(await (await fetch(`${base}/gzip`)).json()).toEqual({ packed: '压缩' });
    const empty = await fetch(`${base}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    await close();
  });

  it('fails as fetch does: "fetch failed" with the network cause, and the signal reason on abort', async () => {
    const base = await serve(() => {
      // Never answers.
    });
    const { fetch, close } = createModelFetch();
    const refused = await fetch('http://127.0.0.1:1/v1/chat/completions', { method: 'POST', body: '{}' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as TypeError).message).toBe('fetch failed');
    expect(((refused as TypeError).cause as { code?: string }).code).toBe('ECONNREFUSED');
    const aborted = await fetch(`${base}/hang`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(50) }).catch((error: unknown) => error);
    expect((aborted as Error).name).toBe('TimeoutError');
    await close();
  });
});
