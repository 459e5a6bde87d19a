import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import type { EscalationCard } from './escalation-card.js';
import { createTicketWebhook } from './ticket-webhook.js';

const card = { reason: 'user_request', trace_id: 't-1' } as EscalationCard;

function scriptedFetch(statuses: (number | Error)[]) {
  const seen: { url: string; init: RequestInit }[] = [];
  const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(url), init: init ?? {} });
    const next = statuses.shift() ?? 200;
    if (next instanceof Error) throw next;
    return new Response('{}', { status: next });
  }) as typeof globalThis.fetch;
  return { fetch, seen };
}

describe('createTicketWebhook', () => {
  it('returns at once and retries network errors and 5xx until delivered', async () => {
    const { fetch, seen } = scriptedFetch([new TypeError('fetch failed'), 502, 200]);
    const webhook = createTicketWebhook({ logger: silentLogger, fetch, initialDelayMs: 1, maxDelayMs: 5 });
    webhook.send('http://tickets.test/hook', card);
    expect(seen.length).toBeLessThanOrEqual(1);
    await webhook.idle();
    expect(seen).toHaveLength(3);
    expect(new Headers(seen[0]!.init.headers).get('idempotency-key')).toBe('t-1');
    expect(JSON.parse(String(seen[0]!.init.body))).toEqual(card);
  });

  it('does not retry a 4xx refusal, and gives up after the bounded retries', async () => {
    const refused = scriptedFetch([400]);
    const first = createTicketWebhook({ logger: silentLogger, fetch: refused.fetch, initialDelayMs: 1 });
    first.send('http://tickets.test/hook', card);
    await first.idle();
    expect(refused.seen).toHaveLength(1);

    const down = scriptedFetch([500, 500, 500, 500, 500, 500]);
    const second = createTicketWebhook({ logger: silentLogger, fetch: down.fetch, initialDelayMs: 1, maxDelayMs: 2, maxRetries: 2 });
    second.send('http://tickets.test/hook', card);
    await second.idle();
    expect(down.seen).toHaveLength(3);
  });

  it('close ends a wait between attempts at once', async () => {
    const { fetch, seen } = scriptedFetch([503, 503, 503]);
    const webhook = createTicketWebhook({ logger: silentLogger, fetch, initialDelayMs: 30_000, maxDelayMs: 30_000 });
    webhook.send('http://tickets.test/hook', card);
    await expect.poll(() => seen.length).toBe(1);
    const started = performance.now();
    await webhook.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(seen).toHaveLength(1);
  });

  it('retries an attempt that timed out', async () => {
    let calls = 0;
    const fetch = (async (_url: string | URL | Request, init?: RequestInit) => {
      calls++;
      if (calls > 1) return new Response('{}', { status: 201 });
      // The first attempt hangs until its own timeout aborts it.
      return new Promise<Response>((_resolve, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)));
    }) as typeof globalThis.fetch;
    const webhook = createTicketWebhook({ logger: silentLogger, fetch, initialDelayMs: 1, attemptTimeoutMs: 50 });
    webhook.send('http://tickets.test/hook', card);
    await webhook.idle();
    expect(calls).toBe(2);
  });

  it('sends nothing after close', async () => {
    const { fetch, seen } = scriptedFetch([]);
    const webhook = createTicketWebhook({ logger: silentLogger, fetch });
    await webhook.close();
    webhook.send('http://tickets.test/hook', card);
    await webhook.idle();
    expect(seen).toHaveLength(0);
  });
});
