/**
 * Requests broken at the HTTP level, sent over raw sockets so nothing cleans
 * them up on the way: each must get a 4xx JSON error from the catalogue, never
 * a 500 and never Node's bare status line.
 */
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `text` on a fresh socket and reads until the server closes it (or `waitMs`). */
function sendRaw(baseUrl: string, text: string | Buffer, options: { waitMs?: number } = {}): Promise<RawResponse> {
  const port = Number(new URL(baseUrl).port);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${options.waitMs ?? 5000} ms; got ${JSON.stringify(Buffer.concat(chunks).toString())}`));
    }, options.waitMs ?? 5000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = raw.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(text);
  });
}

function expectJsonError(response: RawResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const parsed = JSON.parse(response.body) as { error: { code: string; message: string } };
  expect(parsed.error.code).toBe(code);
  expect(parsed.error.message.length).toBeGreaterThan(0);
}

const BODY = JSON.stringify({ query: 'hello', user_id: 'u1' });

function chatRequest(headers: string[], body: string | Buffer): Buffer {
  const head = ['POST /v1/chat HTTP/1.1', 'Host: 127.0.0.1', 'Content-Type: application/json', 'Accept: application/json', 'Connection: close', ...headers].join('\r\n');
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`), Buffer.isBuffer(body) ? body : Buffer.from(body)]);
}

describe('edge errors are JSON', () => {
  let board: TestSwitchboard;
  beforeAll(async () => {
    board = await startTestSwitchboard({ registryYaml: readFileSync('test/fixtures/configs/minimal-valid.yaml', 'utf8'), bodyTimeoutMs: 300 });
  });
  afterAll(() => board.close());

  it('a body that is not gzip although content-encoding says so → 400', async () => {
    const response = await sendRaw(board.url, chatRequest(['Content-Encoding: gzip', `Content-Length: ${BODY.length}`], BODY));
    expectJsonError(response, 400, 'BAD_REQUEST');
    expect(response.body).toMatch(/content-encoding/);
  });

  it('a real gzip body is still accepted', async () => {
    const zipped = gzipSync(BODY);
    const response = await sendRaw(board.url, chatRequest(['Content-Encoding: gzip', `Content-Length: ${zipped.length}`], zipped));
    expect(response.status).toBe(200);
  });

  it('an unknown content-encoding → 415', async () => {
    expectJsonError(await sendRaw(board.url, chatRequest(['Content-Encoding: bogus', `Content-Length: ${BODY.length}`], BODY)), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('content-encoding br on a plain body → 400 JSON, never 500', async () => {
    const response = await sendRaw(board.url, chatRequest(['Content-Encoding: br', `Content-Length: ${BODY.length}`], BODY));
    expectJsonError(response, 400, 'BAD_REQUEST');
    expect(response.body).toMatch(/content-encoding/);
  });

  it('a declared body over the limit → 413 at once, without waiting for the body', async () => {
    const started = Date.now();
    const response = await sendRaw(board.url, chatRequest(['Content-Length: 1000000000'], BODY), { waitMs: 3000 });
    expectJsonError(response, 413, 'PAYLOAD_TOO_LARGE');
    expect(Date.now() - started).toBeLessThan(250);
  });

  it('a malformed percent escape in the path → 400', async () => {
    const response = await sendRaw(board.url, 'GET /v1/sessions/%E0%A4%A/messages?user_id=u1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expectJsonError(response, 400, 'BAD_REQUEST');
    expect(response.body).toMatch(/percent escape/);
  });

  it('a malformed percent escape in the query → 400', async () => {
    const response = await sendRaw(board.url, 'GET /v1/sessions/s1/messages?user_id=%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expectJsonError(response, 400, 'BAD_REQUEST');
  });

  it('an oversized header → 431', async () => {
    const response = await sendRaw(board.url, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`);
    expectJsonError(response, 431, 'HEADERS_TOO_LARGE');
  });

  it('a URL over the parser limit → 431, one over the URL limit → 414', async () => {
    expectJsonError(await sendRaw(board.url, `GET /v1/agents?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`), 431, 'HEADERS_TOO_LARGE');
    expectJsonError(await sendRaw(board.url, `GET /v1/agents?x=${'a'.repeat(9_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`), 414, 'URI_TOO_LONG');
  });

  it('a body shorter than its content-length → 408 after the body timeout, the server still serves others', async () => {
    const started = Date.now();
    const response = await sendRaw(board.url, chatRequest(['Content-Length: 100'], BODY), { waitMs: 3000 });
    expectJsonError(response, 408, 'REQUEST_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(2500);
    const health = await fetch(`${board.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('a malformed request line → 400 JSON', async () => {
    expectJsonError(await sendRaw(board.url, 'GARBAGE\r\n\r\n'), 400, 'BAD_REQUEST');
  });
});
