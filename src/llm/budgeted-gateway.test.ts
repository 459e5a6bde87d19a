import { describe, expect, it } from 'vitest';
import { useFakeModelGateway } from '../../test/support/fake-model-gateway.js';
import { withTurnBudget, tokensUsed } from './budgeted-gateway.js';
import { LlmCallError } from './llm-error.js';
import type { LlmBudgetName, LlmCallOptions, LlmUsage } from './types.js';

const model = useFakeModelGateway();

function turnUsage(maxTokens: number, deadline?: AbortSignal): { usage: LlmUsage; refusals: LlmBudgetName[] } {
  const refusals: LlmBudgetName[] = [];
  return { usage: { calls: [], budget: { maxTokens, deadline, refused: (name) => refusals.push(name) } }, refusals };
}

function call(usage: LlmUsage, fields: Partial<LlmCallOptions> = {}): LlmCallOptions {
  return { purpose: 'answer', tier: 'main', messages: [{ role: 'user', content: 'hello' }], usage, ...fields };
}

async function rejection(promise: Promise<unknown>): Promise<LlmCallError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof LlmCallError)) throw new Error(`expected an LlmCallError, got ${String(error)}`);
  return error;
}

describe('withTurnBudget', () => {
  it('makes no further call once the turn used its tokens', async () => {
    model.fake.push({ content: 'first', usage: { prompt_tokens: 600, completion_tokens: 500 } });
    const gateway = withTurnBudget(model.gateway);
    const { usage, refusals } = turnUsage(1000);
    const before = model.fake.requests.length;
    await expect(gateway.complete(call(usage))).resolves.toMatchObject({ text: 'first' });
    expect(tokensUsed(usage)).toBe(1100);
    const error = await rejection(gateway.complete(call(usage)));
    expect(error.reason).toBe('budget_exhausted');
    expect(refusals).toEqual(['max_llm_tokens']);
    expect(model.fake.requests).toHaveLength(before + 1);
  });

  it('refuses a call whose prompt alone would go past what is left', async () => {
    const gateway = withTurnBudget(model.gateway);
    const { usage, refusals } = turnUsage(20);
    const before = model.fake.requests.length;
    const error = await rejection(gateway.complete(call(usage, { messages: [{ role: 'user', content: 'x'.repeat(400) }] })));
    expect(error.reason).toBe('budget_exhausted');
    expect(refusals).toEqual(['max_llm_tokens']);
    expect(model.fake.requests).toHaveLength(before);
  });

  it('aborts a call in flight when the deadline passes, as a budget stop', async () => {
    model.fake.push({ hang: true });
    const gateway = withTurnBudget(model.gateway);
    const deadline = AbortSignal.timeout(150);
    const { usage, refusals } = turnUsage(100_000, deadline);
    const started = Date.now();
    const error = await rejection(gateway.complete(call(usage)));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.reason).toBe('budget_exhausted');
    expect(refusals).toEqual(['max_turn_ms']);
  });

  it('sends nothing once the deadline passed', async () => {
    const gateway = withTurnBudget(model.gateway);
    const deadline = new AbortController();
    deadline.abort('max_turn_ms');
    const { usage, refusals } = turnUsage(100_000, deadline.signal);
    const before = model.fake.requests.length;
    expect((await rejection(gateway.complete(call(usage)))).reason).toBe('budget_exhausted');
    expect(refusals).toEqual(['max_turn_ms']);
    expect(model.fake.requests).toHaveLength(before);
  });

  it("leaves the caller's own abort an abort", async () => {
    model.fake.push({ hang: true });
    const gateway = withTurnBudget(model.gateway);
    const caller = new AbortController();
    const { usage, refusals } = turnUsage(100_000, new AbortController().signal);
    const pending = gateway.complete(call(usage, { signal: caller.signal }));
    setTimeout(() => caller.abort(), 50);
    expect((await rejection(pending)).reason).toBe('aborted');
    expect(refusals).toEqual([]);
  });

  it('passes calls without a budget straight through', async () => {
    model.fake.push('unbudgeted');
    const gateway = withTurnBudget(model.gateway);
    await expect(gateway.complete({ purpose: 'answer', tier: 'main', messages: [{ role: 'user', content: 'hi' }], usage: { calls: [] } })).resolves.toMatchObject({ text: 'unbudgeted' });
  });
});
