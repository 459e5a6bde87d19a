import { afterEach, describe, expect, it } from 'vitest';
import { oversizeReply, startFakeAgent, type FakeAgent } from '../../test/support/fake-agent.js';
import { createAgentPools, type AgentPools } from './agent-transport.js';
import { AGENT_BODY_HIGH_WATER_MARK, budgetedChunks } from './budgeted-body.js';
import { createByteBudget } from './byte-budget.js';

describe('reply bodies counted as undici hands them over', () => {
  let agent: FakeAgent | undefined;
  let pools: AgentPools | undefined;
  afterEach(async () => {
    await pools?.close();
    await agent?.close();
  });

  it('keeps undici’s own buffer of a body small, and counts every chunk from its arrival until it is handled', async () => {
    agent = await startFakeAgent(oversizeReply(4_000_000));
    pools = createAgentPools();
    const reply = await pools.checked({ url: agent.url, headers: {}, body: '{}', signal: new AbortController().signal });
    // Undici's default is 64 KiB per body, outside any budget.
    expect(reply.stream?.readableHighWaterMark).toBe(AGENT_BODY_HIGH_WATER_MARK);

    const limit = 128 * 1024;
    const budget = createByteBudget(limit);
    const chunks = budgetedChunks(reply.stream!, budget);
    // Nothing is handled for a while: what arrived is counted, and the body stops at the budget.
    const first = await chunks.next();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const received = budget.inFlight;
    expect(received).toBeGreaterThanOrEqual(limit);
    expect(received).toBeLessThan(limit + 64 * 1024);
    expect(reply.stream!.isPaused()).toBe(true);
    // Uncounted: at most the stream's small buffer and one socket read.
    expect(reply.stream!.readableLength).toBeLessThanOrEqual(AGENT_BODY_HIGH_WATER_MARK + 64 * 1024);

    // Handling gives the bytes back; the body resumes and is read whole.
    let total = first.value!.byteLength;
    budget.release(first.value!.byteLength);
    for await (const chunk of chunks) {
      total += chunk.byteLength;
      await new Promise((resolve) => setImmediate(resolve));
      budget.release(chunk.byteLength);
    }
    expect(total).toBe(4_000_000);
    expect(budget.inFlight).toBe(0);
  });
});
