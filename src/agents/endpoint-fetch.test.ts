import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeAgentCard, jsonReply, startFakeAgent, type FakeAgent } from '../../test/support/fake-agent.js';
import { createAgentClient } from './agent-client.js';
import { createEndpointFetch, RefusedAddressError, refusingLookup } from './endpoint-fetch.js';

/** A resolver that answers each name with chosen addresses, honouring `all`, and records what it was asked. */
function mappedLookup(table: Record<string, string[]>, asked: string[] = []): LookupFunction {
  return (hostname, options, callback) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
      return;
    }
    const entries: LookupAddress[] = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (options.all) callback(null, entries);
    else callback(null, entries[0]!.address, entries[0]!.family);
  };
}

const resolve = (lookup: LookupFunction, hostname: string, all: boolean) =>
  new Promise<{ error: Error | null; address: unknown }>((done) => lookup(hostname, { all }, (error, address) => done({ error, address })));

describe('refusingLookup', () => {
  const lookup = refusingLookup(
    mappedLookup({
      'agent.test': ['127.0.0.1'],
      'lan.test': ['10.0.0.5', '192.168.1.9'],
      'meta.test': ['169.254.169.254'],
      'aliyun-meta.test': ['100.100.100.200'],
      'ula.test': ['fd00::1'],
      'linklocal6.test': ['fe80::1'],
      'mapped.test': ['::ffff:169.254.169.254'],
      'compatible.test': ['::a9fe:a9fe'],
      'nat64.test': ['64:ff9b::a9fe:a9fe'],
      'sixtofour.test': ['2002:a9fe:a9fe::1'],
      'teredo.test': ['2001:0:4136:e378:8000:63bf:5601:5601'],
      'nat64-lan.test': ['64:ff9b::a00:5'],
      'mixed.test': ['127.0.0.1', 'fd12:3456::1'],
    }),
  );

  it('lets loopback and private IPv4 networks through, as at load', async () => {
    for (const all of [false, true]) {
      expect((await resolve(lookup, 'agent.test', all)).error).toBeNull();
      expect((await resolve(lookup, 'lan.test', all)).error).toBeNull();
      expect((await resolve(lookup, 'nat64-lan.test', all)).error).toBeNull();
    }
  });

  it('refuses names resolving to link-local, metadata or unique-local addresses, without naming host or address', async () => {
    for (const host of ['meta.test', 'aliyun-meta.test', 'ula.test', 'linklocal6.test', 'mapped.test', 'compatible.test', 'nat64.test', 'sixtofour.test', 'teredo.test']) {
      for (const all of [false, true]) {
        const { error } = await resolve(lookup, host, all);
        expect(error, `${host} all=${all}`).toBeInstanceOf(RefusedAddressError);
        expect(error!.message).not.toMatch(/\.test|169\.254|100\.100|fd00|fe80/);
      }
    }
    // One refused address among several is enough (the connection could pick it).
    expect((await resolve(lookup, 'mixed.test', true)).error).toBeInstanceOf(RefusedAddressError);
  });

  it('passes resolver errors on', async () => {
    expect((await resolve(lookup, 'nowhere.test', false)).error?.message).toMatch(/ENOTFOUND/);
  });
});

describe('agent calls check resolved addresses at connect time', () => {
  let agent: FakeAgent;
  let port: string;
  const asked: string[] = [];
  const lookup = mappedLookup({ 'agent.test': ['127.0.0.1'], 'meta.test': ['169.254.169.254'] }, asked);

  beforeAll(async () => {
    agent = await startFakeAgent(jsonReply({ output: { ok: true } }));
    port = new URL(agent.url).port;
  });
  afterAll(async () => {
    await agent.close();
  });

  it('reaches an agent whose name resolves to loopback', async () => {
    // The system resolver: localhost answers loopback addresses only.
    const response = await createEndpointFetch()(`http://localhost:${port}/invoke`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(200);
    expect(agent.calls).toHaveLength(1);
    // A name the check resolves to loopback is let through to the fetch.
    const seen: string[] = [];
    const recording: typeof globalThis.fetch = async (input) => (seen.push(String(input)), new Response('{}'));
    await createEndpointFetch({ fetch: recording, lookup })(`http://agent.test:${port}/invoke`);
    expect(seen).toEqual([`http://agent.test:${port}/invoke`]);
  });

  it('fails the call, without connecting, when the name resolves to a metadata address; the reason names no address', async () => {
    const client = createAgentClient({ lookup, retryBaseDelayMs: 1 });
    const before = agent.calls.length;
    const outcome = await client.call(fakeAgentCard({ id: 'meta_agent', url: `http://meta.test:${port}/invoke`, timeoutMs: 2000 }), {
      task_id: 't1',
      message: 'm',
      inputs: {},
      user_id: 'u1',
      thread_id: 's1',
      trace_id: 'tr1',
      upstream: {},
    });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.code).toBe('connect_error');
    expect(outcome.detail).toMatch(/allow_private_endpoints/);
    expect(outcome.reason).not.toMatch(/169\.254|meta\.test/);
    expect(agent.calls.length).toBe(before);
    expect(asked).toContain('meta.test');
  });

  it('does not refuse when the registry allows private endpoints', async () => {
    const client = createAgentClient({ lookup, retryBaseDelayMs: 1 });
    const card = fakeAgentCard({ id: 'meta_agent', url: `http://meta.test:${port}/invoke`, timeoutMs: 300 });
    const allowed = { ...card, endpoint: { ...card.endpoint, allowPrivateAddresses: true, retries: 0 } };
    const outcome = await client.call(allowed, { task_id: 't2', message: 'm', inputs: {}, user_id: 'u1', thread_id: 's1', trace_id: 'tr2', upstream: {} });
    // The request goes out to the address the resolver gave (nothing answers there in time), never refused by the check.
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.detail ?? '').not.toMatch(/allow_private_endpoints/);
  });
});
