/**
 * Behaviours checked from outside on a telecom registry of our own
 * (`test/support/telecom-registry.ts`), offline and with a strict fake model:
 * a yes or no with nothing held is answered as such (never out of scope,
 * never a model call), several values for one key are never one of them
 * silently, and the request's own words are never an off-list value.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { createLlmGateway } from '../../src/llm/index.js';
import { silentLogger } from '../../src/logger.js';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { telecomRegistry, type TelecomUrls } from '../support/telecom-registry.js';
import { finalEvent, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date('2026-11-23T10:00:00+08:00');
let agents: Record<keyof TelecomUrls, FakeAgent>;
let offline: TestSwitchboard;
let llm: TestSwitchboard;
let model: FakeOpenAI;

beforeAll(async () => {
  const echo = () => startFakeAgent((body) => jsonReply({ output: { received: (body as { inputs: unknown }).inputs }, message: '已办理。' }));
  agents = { plan: await echo(), bill: await echo(), data: await echo() };
  const yaml = telecomRegistry({ plan: agents.plan.url, bill: agents.bill.url, data: agents.data.url });
  offline = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW });
  // Strict: no reply is scripted, so any model call is recorded as an error.
  model = await startFakeOpenAI();
  const gateway = createLlmGateway({ baseUrl: model.baseUrl, model: 'fake-main', logger: silentLogger, timeoutMs: 2000, maxRetries: 0, breaker: false });
  llm = await startTestSwitchboard({ registryYaml: yaml, llm: gateway, now: () => NOW });
});

afterAll(async () => {
  await Promise.all([offline?.close(), llm?.close(), model?.close()]);
  await Promise.all(Object.values(agents ?? {}).map((agent) => agent.close()));
});

beforeEach(() => {
  for (const agent of Object.values(agents)) agent.calls.length = 0;
});

const outcomeOf = (events: readonly ResponseState[]) => (events[events.length - 1]!.metadata.state as { outcome?: string }).outcome;
const callCount = () => Object.values(agents).reduce((sum, agent) => sum + agent.calls.length, 0);

describe('a yes or no with nothing held', () => {
  it('says nothing awaits confirmation, offline and in LLM mode without a model call', async () => {
    for (const [board, query, session] of [[offline, '确认', 'yes-1'], [offline, 'yes', 'yes-2'], [llm, '确认', 'yes-3'], [llm, 'confirm', 'yes-4']] as const) {
      const events = await board.chat(query, { sessionId: session });
      const final = finalEvent(events);
      expect(final.content).toMatch(/没有需要您确认|nothing waiting for your confirmation/);
      expect(final.content).not.toMatch(/超出|outside what I can help/);
      expect(final.metadata.clarification).toBeUndefined();
    }
    expect(model.requests).toHaveLength(0);
    expect(callCount()).toBe(0);
  });

  it('after a confirmed task ran, a second yes runs nothing again', async () => {
    const held = await offline.chat('把套餐换成畅享129，手机号13912345678', { sessionId: 'yes-5' });
    expect(outcomeOf(held)).toBe('awaiting_confirmation');
    await offline.chat('确认', { sessionId: 'yes-5' });
    expect(agents.plan.calls).toHaveLength(1);
    const again = await offline.chat('确认', { sessionId: 'yes-5' });
    expect(finalEvent(again).content).toMatch(/没有需要您确认/);
    expect(agents.plan.calls).toHaveLength(1);
  });
});

describe('several values for one key on a registry of our own', () => {
  it('two phone numbers for a bill lookup are two lookups', async () => {
    await offline.chat('查一下13912345678和13800001111的话费，月份2026-10', { sessionId: 'several-1' });
    expect(agents.bill.calls.map((call) => (call.body as { inputs: Record<string, unknown> }).inputs).sort((a, b) => String(a.phone_number).localeCompare(String(b.phone_number)))).toEqual([
      { phone_number: '13800001111', bill_month: '2026-10' },
      { phone_number: '13912345678', bill_month: '2026-10' },
    ]);
  });

  it('"充5G流量和10G流量" is asked about, not held with one of them', async () => {
    const events = await offline.chat('充5G流量和10G流量，手机号13912345678', { sessionId: 'several-2' });
    expect(finalEvent(events).metadata.confirmation ?? []).toEqual([]);
    expect(finalEvent(events).content).toContain('5');
    expect(finalEvent(events).content).toContain('10');
    expect(outcomeOf(events)).toBe('input_required');
  });
});

describe('the request’s own words are not a value', () => {
  it('"话费套餐" asks for the plan instead of refusing "话费套餐" as one', async () => {
    const events = await offline.chat('话费套餐', { sessionId: 'words-1' });
    const info = finalEvent(events).metadata.semantic_info ?? [];
    expect(info.filter((entry) => entry.type === 'invalid')).toEqual([]);
    expect(finalEvent(events).content).not.toContain('暂不支持');
  });
});
