import { describe, expect, it } from 'vitest';
import { createCarriedSlot, createTraceContext } from './trace-context.js';

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('carried slots (one AsyncLocalStorage for the process)', () => {
  it('carries each slot through the async steps of the work that set it, as a storage of its own would', async () => {
    const trace = createTraceContext();
    const turn = createCarriedSlot<{ span: string }>();
    const seen: unknown[] = [];
    await trace.run('trace-1', async () => {
      await turn.run({ span: 'a' }, async () => {
        await nextTick();
        seen.push([trace.current(), turn.get()?.span]);
        // An inner run of one slot shadows only that slot.
        await trace.run('trace-2', async () => {
          await nextTick();
          seen.push([trace.current(), turn.get()?.span]);
        });
        seen.push([trace.current(), turn.get()?.span]);
      });
      seen.push([trace.current(), turn.get()]);
    });
    seen.push([trace.current(), turn.get()]);
    expect(seen).toEqual([
      ['trace-1', 'a'],
      ['trace-2', 'a'],
      ['trace-1', 'a'],
      ['trace-1', undefined],
      [undefined, undefined],
    ]);
  });

  it('never reads a value another slot set, even of the same kind', async () => {
    const mine = createTraceContext();
    const other = createTraceContext();
    const read = await other.run('theirs', async () => {
      await nextTick();
      return [mine.current(), other.current()];
    });
    expect(read).toEqual([undefined, 'theirs']);
  });

  it('keeps concurrent works apart', async () => {
    const slot = createCarriedSlot<number>();
    const works = [1, 2, 3].map((value) =>
      slot.run(value, async () => {
        await nextTick();
        await nextTick();
        return slot.get();
      }),
    );
    expect(await Promise.all(works)).toEqual([1, 2, 3]);
  });
});
