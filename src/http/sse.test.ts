import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { openSseStream } from './sse.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** Serves one stream with `body`, records every socket write the response makes, returns what the client read. */
async function serve(body: (stream: ReturnType<typeof openSseStream>) => Promise<void>): Promise<{ writes: string[]; received: string }> {
  const writes: string[] = [];
  const app = express();
  app.get('/stream', (_request, response) => {
    const write = response.write.bind(response);
    response.write = ((chunk: string | Buffer, ...rest: unknown[]) => {
      writes.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof response.write;
    const stream = openSseStream(response, { heartbeatMs: 0 });
    void body(stream).then(() => stream.end());
  });
  server = createServer(app);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const received = await new Promise<string>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/stream' }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
  return { writes, received };
}

describe('SSE stream', () => {
  it('sends the events of one event-loop turn in one write, in order, and each later turn in its own', async () => {
    const { writes, received } = await serve(async (stream) => {
      stream.send({ n: 1 }, 't:1');
      stream.send({ n: 2 }, 't:2');
      stream.sendSerialised('{"n":3}', 't:3');
      await new Promise((resolve) => setTimeout(resolve, 20));
      stream.send({ n: 4 }, 't:4');
    });
    expect(writes).toEqual(['id: t:1\ndata: {"n":1}\n\nid: t:2\ndata: {"n":2}\n\nid: t:3\ndata: {"n":3}\n\n', 'id: t:4\ndata: {"n":4}\n\n']);
    expect(received).toBe(writes.join(''));
  });

  it('writes what is pending before ending, and nothing after', async () => {
    const { received } = await serve(async (stream) => {
      stream.send({ last: true });
      stream.end();
      stream.send({ late: true });
    });
    expect(received).toBe('data: {"last":true}\n\n');
  });
});
