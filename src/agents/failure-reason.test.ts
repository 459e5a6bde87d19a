import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeAgentCard, jsonReply, startFakeAgent, type FakeAgent } from '../../test/support/fake-agent.js';
import { createAgentClient } from './agent-client.js';
import { publicFailureReason, scrubAddresses } from './failure-reason.js';
import type { AgentRequestBody } from './types.js';

const body: AgentRequestBody = { task_id: 't1', message: 'hi', inputs: {}, user_id: 'u1', thread_id: 's1', trace_id: 'trace-1', upstream: {} };
const client = createAgentClient({ retryBaseDelayMs: 1 });

describe('scrubAddresses', () => {
  it.each([
    'could not reach 10.0.0.7:8080/invoke: ECONNREFUSED (connect ECONNREFUSED 10.0.0.7:8080)',
    'see http://internal.example:9000/admin?token=x for details',
    'upstream [fd00::1]:443 refused',
    'fe80::1%eth0 unreachable',
    'billing-svc.internal:7101/invoke answered HTTP 502',
    'localhost said no',
    'metadata at 169.254.169.254 timed out',
  ])('leaves no address or port in %s', (text) => {
    const scrubbed = scrubAddresses(text);
    expect(scrubbed).not.toMatch(/\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|:\d{2,5}\b|https?:|fd00|fe80|localhost|\.internal/);
  });

  it('keeps ordinary prose, times and error codes', () => {
    expect(scrubAddresses('no reply within 150 ms (ECONNRESET) at 10:30')).toBe('no reply within 150 ms (ECONNRESET) at 10:30');
  });

  it('redacts header values and each long word of them', () => {
    expect(publicFailureReason('denied for Bearer sk-live-123456 (token sk-live-123456)', ['Bearer sk-live-123456'])).toBe('denied for [redacted] (token [redacted])');
  });
});

describe('agent client: redirects and public reasons', () => {
  let agent: FakeAgent | undefined;
  let redirector: Server | undefined;
  afterEach(async () => {
    await agent?.close();
    await new Promise((resolve) => (redirector ? redirector.close(resolve) : resolve(undefined)));
    agent = undefined;
    redirector = undefined;
  });

  it('does not follow a redirect: the target never sees the request or its headers', async () => {
    agent = await startFakeAgent(jsonReply());
    const target = agent.url;
    redirector = createServer((request, response) => {
      request.resume();
      response.writeHead(307, { location: target }).end();
    });
    await new Promise<void>((resolve) => redirector!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/invoke`;
    const outcome = await client.call(fakeAgentCard({ url, headers: { Authorization: 'Bearer secret-token-1' } }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'http_status', attempts: 1 });
    expect(agent.calls).toHaveLength(0);
    if (!outcome.ok) {
      expect(outcome.reason).toMatch(/redirect/);
      expect(outcome.reason).not.toMatch(/127\.0\.0\.1|:\d{2,5}/);
      expect(outcome.detail).toMatch(/127\.0\.0\.1/);
    }
  });

  it('keeps addresses, ports and header values out of the reason of a refused connection and of an agent message', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await client.call(fakeAgentCard({ url: `http://127.0.0.1:${port}/invoke`, headers: { 'x-api-key': 'key-abcdef' } }), body);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.reason).toMatch(/ECONNREFUSED/);
      expect(refused.reason).not.toMatch(new RegExp(`127\\.0\\.0\\.1|${port}`));
    }
    agent = await startFakeAgent(jsonReply({ status: 'failed', message: 'db 10.1.2.3:5432 rejected key-abcdef' }));
    const failed = await client.call(fakeAgentCard({ url: agent.url, headers: { 'x-api-key': 'key-abcdef' } }), body);
    expect(failed).toMatchObject({ ok: false, code: 'agent_failed' });
    if (!failed.ok) expect(failed.reason).toBe('db the agent rejected [redacted]');
  });
});
