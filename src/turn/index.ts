/**
 * The turn room: one user turn's life around the supervisor graph — admission
 * (session lease, queue, double-texting strategy, idempotency keys), the event
 * pipeline (numbering, output guard, stream caps, transcript, resume feed),
 * budgets and the finish (`done`, outcome, metrics). The HTTP layer and the
 * server assembly import these names only.
 */
export { createTurnRunner } from './turn-runner.js';
export type { TurnRunnerOptions, TurnStorage, TurnStopReason } from './runner-options.js';
export type { StartedTurn, TurnRequest, TurnResult, TurnRunner } from './turn-types.js';
export { createTurnFeed, parseEventId, type ResumePoint, type TurnFeed } from './turn-feed.js';
export { createTurnStartWindow, type TurnStartWindow } from './turn-start-window.js';
export { startTurnSweeper, type TurnSweeper } from './turn-sweeper.js';
export { traceTurns } from './traced-turns.js';
export { createTurnIdempotency, type IdempotencyClaim, type TurnIdempotency } from './turn-idempotency.js';
export { TURN_OUTCOMES, type TurnOutcomeWord } from './turn-outcome.js';
export { summariseTurnUsage, type TurnUsage } from './turn-usage.js';
export { DEFAULT_STREAM_CAPS, type StreamCapName, type StreamCaps } from './stream-caps.js';
export { recordCacheLookup, recordModelTokens, recordTurnMetrics, turnOutcomeLabel, type CacheName } from './turn-metrics.js';
export type { BudgetName } from '../graph/index.js';
