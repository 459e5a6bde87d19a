/**
 * What a finished turn adds to `/metrics`, read from the events it sent (the
 * same facts the client saw): its outcome — the word its `done` event
 * carried (docs/api.md#conversation-rules, turn-outcome.ts) — and its stage timings.
 * Cache hits and misses are counted by the caches themselves (`recordCacheLookup`), misses being invisible in events.
 */
import { doneOf, outcomeOf, type ResponseState } from '../events/index.js';
import type { TurnOutcome } from '../store/index.js';
import type { Metrics } from '../metrics.js';
import type { LlmCallRecord } from '../llm/index.js';
import { decideTurnOutcome, isTurnOutcomeWord, type TurnOutcomeWord } from './turn-outcome.js';
import { reportedTokens } from './turn-usage.js';

/**
 * The `outcome` label of a finished turn: the outcome its `done` event carried
 * (decided once, in turn-outcome.ts), or decided the same way when no
 * `done` was sent.
 */
export function turnOutcomeLabel(lifecycle: TurnOutcome, events: readonly ResponseState[]): TurnOutcomeWord {
  const said = outcomeOf(doneOf(events));
  return isTurnOutcomeWord(said) ? said : decideTurnOutcome(lifecycle, events);
}

/** Records one finished turn. */
export function recordTurnMetrics(metrics: Metrics, lifecycle: TurnOutcome, durationMs: number, events: readonly ResponseState[]): void {
  metrics.turns.inc({ outcome: turnOutcomeLabel(lifecycle, events) });
  metrics.turnDuration.observe(durationMs / 1000);
  const timings = doneOf(events)?.metadata.state?.timings_ms;
  if (timings && typeof timings === 'object') {
    for (const [stage, ms] of Object.entries(timings as Record<string, unknown>)) {
      if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) metrics.stageDuration.observe({ stage }, ms / 1000);
    }
  }
}

/**
 * The cache a lookup went to: `answer` (hot questions), `response` (a sub-agent reply), `intent` (a model
 * intent result), or `answer_paraphrase` (the answer cache's look-up by meaning after an exact miss, made when
 * the question has a vector from the embeddings endpoint; its hits are counted under `answer` too).
 */
export type CacheName = 'answer' | 'response' | 'intent' | 'answer_paraphrase';

/** Counts one cache lookup as a hit or a miss. */
export function recordCacheLookup(metrics: Metrics, cache: CacheName, hit: boolean): void {
  (hit ? metrics.cacheHits : metrics.cacheMisses).inc({ cache });
}

/** Counts a finished turn's model tokens as the endpoint reported them (`switchboard_model_tokens_total`). */
export function recordModelTokens(metrics: Metrics, calls: readonly LlmCallRecord[]): void {
  for (const call of calls) {
    const tokens = reportedTokens(call);
    if (tokens.prompt > 0) metrics.modelTokens.inc({ kind: 'prompt', model: call.model }, tokens.prompt);
    if (tokens.completion > 0) metrics.modelTokens.inc({ kind: 'completion', model: call.model }, tokens.completion);
  }
}
