/**
 * Per-turn model accounting for `metadata.state` of a turn's final event:
 * what the turn cost in calls, tokens and model time, and for what.
 */
import type { LlmUsage } from './types.js';

/** Totals of one purpose (`intent`, `plan`, `answer`, ...). */
export interface PurposeUsage {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  latency_ms: number;
}

/** Totals of one turn; snake_case because it goes out in event metadata. */
export interface UsageSummary extends PurposeUsage {
  /** Calls that failed (they count in `calls` too). */
  failed_calls: number;
  /** True when any token count in the totals is an estimate. */
  tokens_estimated: boolean;
  by_purpose: Record<string, PurposeUsage>;
}

/** A fresh, empty accounting object for one turn. */
export function createLlmUsage(): LlmUsage {
  return { calls: [] };
}

/**
 * Sums a turn's call records. `latency_ms` is the sum of call latencies
 * (model time), which exceeds wall time when calls ran in parallel.
 */
export function summariseUsage(usage: LlmUsage | undefined): UsageSummary {
  const byPurpose: Record<string, PurposeUsage> = Object.create(null) as Record<string, PurposeUsage>;
  const summary: UsageSummary = { calls: 0, prompt_tokens: 0, completion_tokens: 0, latency_ms: 0, failed_calls: 0, tokens_estimated: false, by_purpose: byPurpose };
  for (const call of usage?.calls ?? []) {
    const purpose = (summary.by_purpose[call.purpose] ??= { calls: 0, prompt_tokens: 0, completion_tokens: 0, latency_ms: 0 });
    for (const totals of [summary, purpose]) {
      totals.calls += 1;
      totals.prompt_tokens += call.promptTokens;
      totals.completion_tokens += call.completionTokens;
      totals.latency_ms += call.latencyMs;
    }
    if (!call.ok) summary.failed_calls += 1;
    if (call.tokensEstimated) summary.tokens_estimated = true;
  }
  return summary;
}
