import { afterEach, describe, expect, it } from 'vitest';
import { oversizeReply, startFakeAgent, type FakeAgent } from '../../test/support/fake-agent.js';
import { readBoundedBody } from './protocols/http-common.js';
import { createByteBudget } from './byte-budget.js';
import { createAgentPools } from './agent-transport.js';

describe('the process-wide budget of sub-agent bytes in flight', () => {
  let agents: FakeAgent[] = [];
  afterEach(async () => {
    await Promise.all(agents.map((agent) => agent.close()));
    agents = [];
  });

  it('grants in FIFO order and never more than the limit, except one chunk alone', async () => {
    const budget = createByteBudget(100);
    await budget.take(60);
    let second = false;
    const waiting = budget.take(60).then(() => (second = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(second).toBe(false);
    expect(budget.waiting).toBe(1);
    budget.release(60);
    await waiting;
    expect(budget.inFlight).toBe(60);
    budget.release(60);
    // A chunk larger than the whole budget passes when nothing else is in flight.
    await budget.take(500);
    budget.release(500);
    expect(budget.inFlight).toBe(0);
  });

  it('holds twenty bodies read at once to the budget, and every body is read whole', async () => {
    const limit = 256 * 1024;
    const budget = createByteBudget(limit);
    for (let index = 0; index < 20; index++) agents.push(await startFakeAgent(oversizeReply(2_000_000)));
    const pools = createAgentPools();
    let peak = 0;
    const reads = await Promise.all(
      agents.map(async (agent) => {
        const response = await pools.checked({ url: agent.url, headers: {}, body: '{}', signal: new AbortController().signal });
        return readBoundedBody(
          response,
          8_000_000,
          () => {
            peak = Math.max(peak, budget.inFlight);
          },
          { keepText: false, budget },
        );
      }),
    );
    expect(reads.every((read) => read.ok)).toBe(true);
    // At most the limit, or one chunk (up to 64 KiB from a socket) admitted alone.
    expect(peak).toBeLessThanOrEqual(limit + 64 * 1024);
    expect(budget.inFlight).toBe(0);
    await pools.close();
  });
});
