/**
 * Sends escalation cards to the ticket system (seed 002 "escalate → ticket").
 * Fire-and-forget: `send` returns at once so the user's stream never waits;
 * the POST is retried with exponential backoff and jitter (p-retry, as the
 * sub-agent client does) on network errors, timeouts, 408/429 and 5xx, a
 * bounded number of times, and every outcome is logged. Closing ends a wait
 * between attempts at once. The trace id is the `idempotency-key`, so a receiver that got the
 * card before a lost response can drop the repeat.
 *
 * The endpoint rules of sub-agents apply: a redirect is never followed (a 3xx
 * answer is a failed delivery, not retried, so the card is never re-sent
 * elsewhere or as a GET), and the url's host name is resolved before each
 * attempt and refused when it lies in a link-local / metadata / unique-local
 * range, unless the registry allows private endpoints (`send`'s option).
 */
import pRetry, { AbortError } from 'p-retry';
import { createEndpointFetch } from '../agents/index.js';
import type { Logger } from '../logger.js';
import type { EscalationCard } from './escalation-card.js';

export interface TicketWebhookOptions {
  logger: Logger;
  /** The transport (default: the endpoint fetch that refuses private addresses, or the plain fetch when they are allowed). */
  fetch?: typeof globalThis.fetch;
  /** Retries after the first attempt. Default 4. */
  maxRetries?: number;
  /** First backoff delay. Default 500 ms. */
  initialDelayMs?: number;
  /** Largest backoff delay. Default 10 s. */
  maxDelayMs?: number;
  /** Timeout of one attempt. Default 5 s. */
  attemptTimeoutMs?: number;
}

export interface TicketWebhook {
  /** Starts delivering `card` to `url` and returns at once; `allowPrivateAddresses` is `supervisor.allow_private_endpoints`. */
  send(url: string, card: EscalationCard, options?: { allowPrivateAddresses?: boolean }): void;
  /** Settles when every delivery started so far has ended (delivered or given up). */
  idle(): Promise<void>;
  /** Stops retrying: deliveries in backoff give up, attempts in flight are aborted. */
  close(): Promise<void>;
}

class RetryableDelivery extends Error {}

const RETRYABLE_STATUS = (status: number) => status === 408 || status === 429 || status >= 500;

/** Creates the webhook sender (one per server). */
export function createTicketWebhook(options: TicketWebhookOptions): TicketWebhook {
  const checkedFetch = options.fetch ?? createEndpointFetch();
  const plainFetch = options.fetch ?? globalThis.fetch;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 5000;
  const retry = {
    retries: options.maxRetries ?? 4,
    factor: 2,
    minTimeout: options.initialDelayMs ?? 500,
    maxTimeout: options.maxDelayMs ?? 10_000,
    randomize: true,
  };
  const inFlight = new Set<Promise<void>>();
  const closing = new AbortController();

  async function deliver(url: string, card: EscalationCard, allowPrivateAddresses: boolean): Promise<void> {
    const fetchImpl = allowPrivateAddresses ? plainFetch : checkedFetch;
    const log = { traceId: card.trace_id, reason: card.reason };
    let attempts = 0;
    try {
      const status = await pRetry(async (attempt) => {
        attempts = attempt;
        const response = await fetchImpl(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': card.trace_id },
          body: JSON.stringify(card),
          signal: AbortSignal.any([closing.signal, AbortSignal.timeout(attemptTimeoutMs)]),
          redirect: 'manual',
        });
        await response.body?.cancel().catch(() => undefined);
        if (response.status >= 300 && response.status < 400) throw new AbortError(`ticket webhook answered ${response.status} (a redirect); redirects are not followed`);
        if (RETRYABLE_STATUS(response.status)) throw new RetryableDelivery(`ticket webhook answered ${response.status}`);
        return response.status;
      }, { ...retry, signal: closing.signal });
      if (status >= 200 && status < 300) options.logger.info({ ...log, attempts, status }, 'escalation card delivered');
      else options.logger.warn({ ...log, attempts, status }, 'ticket webhook refused the escalation card');
    } catch (error) {
      options.logger.warn({ ...log, attempts, err: error instanceof Error ? error.message : String(error) }, 'escalation card not delivered; gave up');
    }
  }

  return {
    send(url, card, sendOptions = {}) {
      if (closing.signal.aborted) {
        options.logger.warn({ traceId: card.trace_id }, 'escalation card not sent: shutting down');
        return;
      }
      const delivery = deliver(url, card, sendOptions.allowPrivateAddresses === true).finally(() => inFlight.delete(delivery));
      inFlight.add(delivery);
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async close() {
      closing.abort();
      await this.idle();
    },
  };
}
