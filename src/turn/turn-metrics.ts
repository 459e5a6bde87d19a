/**
 * What a finished turn adds to `/metrics`, read from the events it sent (the
 * same facts the client saw): its outcome — where a turn that ran to its end
 * but got nothing done is `failed`, half done `partial`, waiting on the user
 * `input_required`, and one whose results the verify step found insufficient
 * `unresolved` (docs/api.md#model-replies: such a turn counts as unresolved whatever
 * completed) — and its stage timings. Cache hits and misses are counted
 * by the caches themselves (`recordCacheLookup`), misses being invisible in events.
 */
import type { ResponseState } from '../graph/response-state.js';
import type { TurnOutcome } from '../store/types.js';
import type { Metrics } from '../metrics.js';

/** The `outcome` label of a finished turn. */
export function turnOutcomeLabel(lifecycle: TurnOutcome, events: readonly ResponseState[]): string {
  if (lifecycle !== 'completed') return lifecycle;
  const stages = events.map((event) => event.metadata.stage);
  if (stages.includes('escalate')) return 'escalated';
  const final = [...events].reverse().find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true);
  // The final event's task list is the turn's record (it includes tasks refused before dispatch, which send no agent event).
  const tasks = finalTaskStatuses(final);
  const completed = tasks
    ? tasks.filter((status) => status === 'completed').length
    : events.filter((event) => event.metadata.stage === 'agent_done' && event.metadata.state?.status !== 'input_required').length;
  const failed = tasks
    ? tasks.filter((status) => status === 'failed' || status === 'skipped').length
    : events.filter((event) => event.metadata.stage === 'agent_failed').length;
  const waiting =
    (final?.metadata.semantic_info ?? []).length > 0 ||
    pendingConfirmations(final) > 0 ||
    (tasks ?? []).some((status) => status === 'input_required' || status === 'parked' || status === 'awaiting_confirmation') ||
    events.some((event) => event.metadata.stage === 'agent_done' && event.metadata.state?.status === 'input_required');
  if (failed > 0 && completed === 0 && !waiting) return 'failed';
  if (verifiedInsufficient(final)) return 'unresolved';
  if (failed > 0) return 'partial';
  if (waiting) return 'input_required';
  return 'completed';
}

/** Whether a complete final event says the verify step found the results insufficient (`state.verification.sufficient: false`). */
export function verifiedInsufficient(final: ResponseState | undefined): boolean {
  const verification = final?.metadata.state?.verification;
  return typeof verification === 'object' && verification !== null && (verification as { sufficient?: unknown }).sufficient === false;
}

/** Records one finished turn. */
export function recordTurnMetrics(metrics: Metrics, lifecycle: TurnOutcome, durationMs: number, events: readonly ResponseState[]): void {
  metrics.turns.inc({ outcome: turnOutcomeLabel(lifecycle, events) });
  metrics.turnDuration.observe(durationMs / 1000);
  const done = events.find((event) => event.metadata.stage === 'done');
  const timings = done?.metadata.state?.timings_ms;
  if (timings && typeof timings === 'object') {
    for (const [stage, ms] of Object.entries(timings as Record<string, unknown>)) {
      if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) metrics.stageDuration.observe({ stage }, ms / 1000);
    }
  }
}

/** Side-effect tasks a final event asks the user to confirm (`metadata.confirmation`). */
function pendingConfirmations(event: ResponseState | undefined): number {
  const list = (event?.metadata as { confirmation?: unknown } | undefined)?.confirmation;
  return Array.isArray(list) ? list.length : 0;
}

/** The cache a lookup went to: `answer` (hot questions), `response` (a sub-agent reply) or `intent` (a model intent result). */
export type CacheName = 'answer' | 'response' | 'intent';

/** Counts one cache lookup as a hit or a miss. */
export function recordCacheLookup(metrics: Metrics, cache: CacheName, hit: boolean): void {
  (hit ? metrics.cacheHits : metrics.cacheMisses).inc({ cache });
}

/** The task statuses a final event lists (`state.tasks[].status`), or undefined when it lists none. */
function finalTaskStatuses(event: ResponseState | undefined): string[] | undefined {
  const list = event?.metadata.state?.tasks;
  if (!Array.isArray(list)) return undefined;
  return list.flatMap((task) => (task && typeof task === 'object' && typeof (task as { status?: unknown }).status === 'string' ? [(task as { status: string }).status] : []));
}
