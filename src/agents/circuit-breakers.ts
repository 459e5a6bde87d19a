/**
 * One circuit breaker per sub-agent (registry `endpoint.circuit_breaker`;
 * seed 001: an agent failing more than half its calls is paused and tried
 * again later). A paused agent costs a turn nothing: its sub-tasks fail at
 * once instead of waiting out the timeout and retries of every call.
 *
 * The breaker is opossum's, as for the model endpoint (decision 0035): it
 * counts attempts in a rolling window, opens when at least `min_calls` were
 * made and the failed share reached `error_rate`, and after `open_s` lets one
 * trial attempt through whose outcome closes or re-opens it.
 *
 * State is per replica: each process judges an agent by the calls it made
 * itself. Sharing it would put a Redis round trip in front of every sub-agent
 * call, and an outage every replica sees opens every replica's breaker after
 * `min_calls` calls anyway (decision 0035).
 *
 * A breaker belongs to an agent's endpoint as configured: a reload that changes
 * the URL, protocol or breaker settings of an agent starts it afresh.
 */
import CircuitBreaker from 'opossum';
import { silentLogger, type Logger } from '../logger.js';
import { type AgentCard, type CircuitBreakerSettings, SUPERVISOR_DEFAULTS } from '../registry/index.js';

/** What `GET /v1/agents` shows as `health.breaker`. */
export type BreakerState = 'closed' | 'open' | 'half_open';

/** The outcome of running one attempt through an agent's breaker. */
export type GuardedAttempt<T> = { refused: true } | { refused: false; result: T };

export interface AgentBreakers {
  /**
   * Runs `attempt` unless `card`'s breaker is open (or half-open with its
   * trial call in flight). `failed(result)` says whether the result counts
   * against the agent.
   */
  run<T>(card: AgentCard, attempt: () => Promise<T>, failed: (result: T) => boolean): Promise<GuardedAttempt<T>>;
  /** The breaker state of an agent (`closed` before its first call). */
  state(agentId: string): BreakerState;
  /** After a reload: forgets the breakers of agents not in `cards` and starts afresh those whose endpoint changed. */
  retain(cards: readonly AgentCard[]): void;
  /** Stops every breaker's timers. */
  close(): void;
}

export interface AgentBreakersOptions {
  logger?: Logger;
  /** Told of each change of state (metrics). */
  onTransition?: (agentId: string, from: BreakerState, to: BreakerState) => void;
}

/** Thrown inside an attempt whose result counts as a failure, so opossum counts it; carries the result out. */
class CountedFailure<T> extends Error {
  constructor(readonly result: T) {
    super('sub-agent attempt failed');
    this.name = 'CountedFailure';
  }
}

interface Entry {
  fingerprint: string;
  breaker: CircuitBreaker<[() => Promise<unknown>], unknown>;
  state: BreakerState;
}

function settingsOf(card: AgentCard): CircuitBreakerSettings {
  return card.endpoint.circuitBreaker ?? SUPERVISOR_DEFAULTS.circuitBreaker;
}

/** What a breaker belongs to: the agent's endpoint and its breaker settings. */
function fingerprintOf(card: AgentCard, settings: CircuitBreakerSettings): string {
  return JSON.stringify([card.endpoint.url, card.endpoint.protocol, settings]);
}

/** Creates the breakers of one process. */
export function createAgentBreakers(options: AgentBreakersOptions = {}): AgentBreakers {
  const logger = options.logger ?? silentLogger;
  const byAgent = new Map<string, Entry>();

  function forget(agentId: string, entry: Entry, why: string): void {
    entry.breaker.shutdown();
    byAgent.delete(agentId);
    if (entry.state !== 'closed') transition(agentId, entry, 'closed', why);
  }

  function entryFor(card: AgentCard, settings: CircuitBreakerSettings): Entry {
    const fingerprint = fingerprintOf(card, settings);
    const existing = byAgent.get(card.id);
    if (existing && existing.fingerprint === fingerprint) return existing;
    if (existing) forget(card.id, existing, 'the endpoint changed');
    const breaker = new CircuitBreaker<[() => Promise<unknown>], unknown>((attempt: () => Promise<unknown>) => attempt(), {
      name: card.id,
      timeout: false,
      volumeThreshold: settings.minCalls,
      // opossum opens above the percentage; the registry's rate opens at or above it.
      errorThresholdPercentage: settings.errorRate * 100 - 1e-9,
      resetTimeout: settings.openS * 1000,
      rollingCountTimeout: settings.windowS * 1000,
      rollingCountBuckets: 10,
    });
    const entry: Entry = { fingerprint, breaker, state: 'closed' };
    breaker.on('open', () => transition(card.id, entry, 'open', `${settings.errorRate * 100}% or more of the last calls failed`));
    breaker.on('halfOpen', () => transition(card.id, entry, 'half_open', `${settings.openS} s passed; one trial call decides`));
    breaker.on('close', () => transition(card.id, entry, 'closed', 'a trial call succeeded'));
    byAgent.set(card.id, entry);
    return entry;
  }

  function transition(agentId: string, entry: Entry, to: BreakerState, why: string): void {
    const from = entry.state;
    if (from === to) return;
    entry.state = to;
    const level = to === 'open' ? 'warn' : 'info';
    logger[level]({ agent: agentId, from, to, why }, `sub-agent circuit breaker ${to.replace('_', '-')}`);
    options.onTransition?.(agentId, from, to);
  }

  return {
    async run<T>(card: AgentCard, attempt: () => Promise<T>, failed: (result: T) => boolean): Promise<GuardedAttempt<T>> {
      const settings = settingsOf(card);
      if (!settings.enabled) return { refused: false, result: await attempt() };
      const { breaker } = entryFor(card, settings);
      try {
        const result = (await breaker.fire(async () => {
          const outcome = await attempt();
          if (failed(outcome)) throw new CountedFailure(outcome);
          return outcome;
        })) as T;
        return { refused: false, result };
      } catch (error) {
        if (error instanceof CountedFailure) return { refused: false, result: error.result as T };
        if ((error as { code?: unknown }).code === 'EOPENBREAKER') return { refused: true };
        throw error;
      }
    },
    state(agentId) {
      return byAgent.get(agentId)?.state ?? 'closed';
    },
    retain(cards) {
      const byId = new Map(cards.map((card) => [card.id, card]));
      for (const [agentId, entry] of byAgent) {
        const card = byId.get(agentId);
        if (!card) forget(agentId, entry, 'the agent left the registry');
        else if (fingerprintOf(card, settingsOf(card)) !== entry.fingerprint) forget(agentId, entry, 'the endpoint changed');
      }
    },
    close() {
      for (const entry of byAgent.values()) entry.breaker.shutdown();
      byAgent.clear();
    },
  };
}
