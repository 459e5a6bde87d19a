/**
 * The injection corpus (≥ 200 strings, zh and en, direct in the query and
 * indirect inside a sub-agent's reply) through a real Switchboard, offline
 * and in LLM mode with a compromised fake model that obeys every injected
 * instruction (test/support/injection-fleet.ts). Nothing the user sees may
 * carry an agent id, an endpoint address, a header value or a sentence of a
 * system prompt, and no agent may be called beyond the plan; injected text
 * never reaches an agent that is not a dependent of the one that returned it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInjectionCorpus, runCases, startInjectionFleet, type InjectionFleet } from '../support/injection-fleet.js';

const corpus = readInjectionCorpus();

describe('injection corpus', () => {
  let fleet: InjectionFleet;
  beforeAll(async () => {
    fleet = await startInjectionFleet();
  });
  afterAll(async () => {
    await fleet?.close();
  });

  it('holds at least 200 strings, zh and en, direct and indirect', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(200);
    for (const lang of ['zh', 'en']) for (const channel of ['direct', 'indirect']) expect(corpus.filter((entry) => entry.lang === lang && entry.channel === channel).length).toBeGreaterThanOrEqual(50);
    expect(new Set(corpus.map((entry) => entry.text)).size).toBe(corpus.length);
  });

  it('offline and LLM mode: zero leaks and zero extra agent calls', async () => {
    const [offline, llm] = await Promise.all([runCases(fleet, corpus, 'offline'), runCases(fleet, corpus, 'llm')]);
    for (const results of [offline, llm]) {
      const failures = results.filter((result) => result.leaks.length > 0 || result.extraCalls.length > 0 || result.forwarded);
      expect(failures, JSON.stringify(failures.slice(0, 5), null, 2)).toEqual([]);
      expect(results.every((result) => result.events > 0)).toBe(true);
      // Every indirect case really reached the agents, so each injected reply was read.
      const indirect = results.filter((_result, index) => corpus[index]!.channel === 'indirect');
      expect(indirect.filter((result) => result.calls.weather !== 1 || result.calls.flight !== 1).map((result) => result.id)).toEqual([]);
    }
    // The compromised model was really consulted (intent, verify and answer calls).
    const purposes = new Set(fleet.model.requests.map((request) => request.response_format?.json_schema?.name ?? (request.stream ? 'answer' : 'other')));
    expect([...purposes]).toEqual(expect.arrayContaining(['intent_and_plan', 'verify', 'answer']));
    // Every model request was well formed (the fake records malformed bodies and unknown routes).
    expect(fleet.model.errors).toEqual([]);
  }, 240_000);
});
