/**
 * The evaluation room: the routing evaluation and its report, the baselines beside it, the
 * dialogue lines and their stub agents and scoring, replay and review of recorded turns.
 * Other rooms (the commands) import these names from this file only.
 */
export { formatDialogueReport, summariseDialogues, type DialogueRun, type DialogueSummary, type TurnObservation } from './dialogue-report.js';
export type { DialogueCase } from './dialogue-set.js';
export { formatEvalReport, summariseEval } from './eval-report.js';
export { parseEvalSet } from './eval-set.js';
export { buildLinearBaseline } from './linear-baseline.js';
export { buildNearestBaseline, type NearestBaseline } from './nearest-baseline.js';
export { formatReplayReport, replayJson } from './replay-report.js';
export { createRouter, replayTurns, type ReplayResult, type Routing } from './replay.js';
export { collectReview } from './review-lines.js';
export { runEval } from './run-eval.js';
export { startStubAgents, type StubAgents, type StubCall } from './stub-agents.js';
