import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLoopShare } from './loop-share.js';

describe('createLoopShare', () => {
  let server: Server | undefined;
  let client: Socket | undefined;
  afterEach(async () => {
    client?.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = client = undefined;
  });

  it('hands out slots in the order they were asked for', async () => {
    const slot = createLoopShare();
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((index) => slot().then(() => order.push(index))));
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('reads a socket that became readable during one slot before the next slot runs', async () => {
    const received = new Promise<Socket>((resolve) => {
      server = createServer(resolve);
      server.listen(0, '127.0.0.1');
    });
    await new Promise<void>((resolve) => server!.once('listening', resolve));
    client = connect((server!.address() as AddressInfo).port, '127.0.0.1');
    await new Promise<void>((resolve) => client!.once('connect', resolve));
    const accepted = await received;
    const order: string[] = [];
    accepted.on('data', () => order.push('data'));

    const slot = createLoopShare();
    await Promise.all([
      slot().then(() => {
        order.push('slot 1');
        client!.write('x');
      }),
      slot().then(() => order.push('slot 2')),
      slot().then(() => order.push('slot 3')),
    ]);
    expect(order).toEqual(['slot 1', 'data', 'slot 2', 'slot 3']);
  });
});
