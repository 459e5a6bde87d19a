import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { openSseStream } from './sse.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** What a socket write carried: the SSE frames' text in it (chunk sizes and the headers left out). */
type SocketWrite = string;

/**
 * Serves one stream with `body`, records every write the response makes and every write system call on its
 * socket (what of the SSE frames each carried), returns what the client read.
 */
async function serve(
  body: (stream: ReturnType<typeof openSseStream>, marks: string[]) => Promise<void>,
  options: { heartbeatMs?: number; coalesceMs?: number } = {},
): Promise<{ writes: string[]; socketWrites: SocketWrite[]; marks: string[]; received: string }> {
  const writes: string[] = [];
  const socketWrites: SocketWrite[] = [];
  const marks: string[] = [];
  const app = express();
  app.get('/stream', (_request, response) => {
    const write = response.write.bind(response);
    response.write = ((chunk: string | Buffer, ...rest: unknown[]) => {
      writes.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof response.write;
    // A corked socket hands all it holds to one `_writeGeneric` (one writev): count those.
    const socket = response.socket as unknown as { _writeGeneric: (writev: boolean, data: unknown, ...rest: unknown[]) => unknown };
    const writeGeneric = socket._writeGeneric.bind(socket);
    socket._writeGeneric = (writev, data, ...rest) => {
      const parts = writev ? (data as { chunk: unknown }[]).map((part) => part.chunk) : [data];
      const text = parts.map((part) => String(part)).join('');
      const frames = [...text.matchAll(/^(?:data: .*|: ping)$/gm)].map((match) => match[0]);
      socketWrites.push(frames.join('|'));
      marks.push(`socket write ${frames.join('|')}`);
      return writeGeneric(writev, data, ...rest);
    };
    const stream = openSseStream(response, { heartbeatMs: options.heartbeatMs ?? 0, ...(options.coalesceMs !== undefined ? { coalesceMs: options.coalesceMs } : {}) });
    void body(stream, marks).then(() => stream.end());
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
  return { writes, socketWrites, marks, received };
}

const nextLoopTurn = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SSE stream', () => {
  it('sends the events of one event-loop turn in one write, in order, and each later turn in its own', async () => {
    const { writes, received } = await serve(async (stream) => {
      // Later than the window the first write opens: its own write at the end of its loop turn.
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

  it('lets events that follow a write within the window share the next socket write, never holding the first frame or the end', async () => {
    const { socketWrites, marks, received } = await serve(
      async (stream, marks) => {
        stream.send({ n: 1 }, 't:1');
        // The first frame leaves now, with the headers.
        stream.flush();
        // Two events in two later loop turns, inside the window of the first write: one write for both.
        stream.send({ n: 2 }, 't:2');
        await nextLoopTurn();
        stream.send({ n: 3 }, 't:3');
        // Past the window of that write (at about 200 ms): at the end of its loop turn.
        await sleep(500);
        stream.send({ n: 4 }, 't:4');
        await nextLoopTurn();
        await nextLoopTurn();
        // Inside the window of the last write, but the end is not held: written before the next loop turn.
        stream.send({ n: 5 }, 't:5');
        stream.end();
        setImmediate(() => marks.push('next loop turn'));
      },
      { coalesceMs: 200 },
    );
    expect(socketWrites).toEqual(['data: {"n":1}', 'data: {"n":2}|data: {"n":3}', 'data: {"n":4}', 'data: {"n":5}']);
    await sleep(20);
    expect(marks.indexOf('socket write data: {"n":5}')).toBeGreaterThanOrEqual(0);
    expect(marks.indexOf('socket write data: {"n":5}')).toBeLessThan(marks.indexOf('next loop turn'));
    // Ids kept on every frame, in order: what a client sends back as Last-Event-ID.
    expect([...received.matchAll(/^id: (.*)$/gm)].map((match) => match[1])).toEqual(['t:1', 't:2', 't:3', 't:4', 't:5']);
  });

  it('keeps the heartbeat going while events wait in a window', async () => {
    const { received, socketWrites } = await serve(
      async (stream) => {
        stream.send({ n: 1 }, 't:1');
        stream.flush();
        await sleep(120);
        stream.send({ n: 2 }, 't:2');
      },
      { heartbeatMs: 25, coalesceMs: 10 },
    );
    expect(received).toMatch(/^id: t:1\ndata: \{"n":1\}\n\n(: ping\n\n)+id: t:2\ndata: \{"n":2\}\n\n$/);
    expect(socketWrites.filter((write) => write.includes('ping')).length).toBeGreaterThanOrEqual(2);
  });
});
