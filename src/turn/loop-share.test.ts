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

  async function connectedPair(): Promise<{ accepted: Socket; sender: Socket }> {
    const received = new Promise<Socket>((resolve) => {
      server = createServer(resolve);
      server.listen(0, '127.0.0.1');
    });
    await new Promise<void>((resolve) => server!.once('listening', resolve));
    client = connect((server!.address() as AddressInfo).port, '127.0.0.1');
    await new Promise<void>((resolve) => client!.once('connect', resolve));
    return { accepted: await received, sender: client };
  }

  /** Three slots; the first one's stretch writes to a socket whose reading is logged among the stretches. */
  async function orderWith(slot: () => Promise<void>): Promise<string[]> {
    const { accepted, sender } = await connectedPair();
    const order: string[] = [];
    accepted.on('data', () => order.push('data'));
    await Promise.all([
      slot().then(() => {
        order.push('slot 1');
        sender.write('x');
      }),
      slot().then(() => order.push('slot 2')),
      slot().then(() => order.push('slot 3')),
    ]);
    await new Promise<void>((resolve) => (order.includes('data') ? resolve() : accepted.once('data', () => resolve())));
    return order;
  }

  it('reads a socket that became readable during one stretch before the next one runs, once the loop turn spent its budget', async () => {
    expect(await orderWith(createLoopShare(0))).toEqual(['slot 1', 'data', 'slot 2', 'slot 3']);
  });

  it('runs short stretches in the same loop turn while it is within its budget', async () => {
    expect(await orderWith(createLoopShare(60_000))).toEqual(['slot 1', 'slot 2', 'slot 3', 'data']);
  });
});
