/**
 * The graph room: the supervisor flowchart. Other rooms see it through these names only —
 * the flowchart (its steps and where each goes next) and the runner that runs it over the
 * checkpointer, the state it carries, the turn's context a step gets, and the strategies the
 * assembly picks for its steps (answers, verifiers, caches). The nodes and routers themselves
 * stay inside: the flowchart wires them (`build-graph.ts`).
 */

// The flowchart and its runner.
export { buildSupervisorGraph, supervisorFlowchart, type FlowchartEngine, type SupervisorDependencies, type SupervisorGraph } from './build-graph.js';
export { compileFlowchart, FLOW_END, type FlowchartRunner, type FlowRunOptions } from './flowchart-runner.js';

// The state it carries, and what a step gets for one turn.
export { emptyMemory, type SessionMemory, type SupervisorState } from './state.js';
export type { AgentCallRecord, NodeEvent, TaskRecorder, TurnContext } from './context.js';
export type { ValueSource } from './value-source.js';
export { createTurnBudget, type BudgetName, type TurnBudget } from './turn-budget.js';

// The strategies the assembly picks for the steps.
export { createLlmAnswers } from './answers/llm-answers.js';
export { createOfflineAnswers } from './answers/offline-answers.js';
export type { AnswerComposer } from './answers/types.js';
export { createLlmVerifier } from './verify/llm-verifier.js';
export { createOfflineVerifier } from './verify/offline-verifier.js';
export type { Verifier } from './verify/types.js';
export { createAnswerCache } from './caches/answer-cache.js';
export { createResponseCache } from './caches/response-cache.js';

// What the turn and the evaluation read of the graph's rules: the output guard, reply words, memory.
export { createOutputGuard, createSystemPromptLeakCheck, type OutputGuard } from './output-guard.js';
export { classifyReplyWord } from './control/classify-reply-word.js';
export { memoryAfterBusinessTurn, rememberTurn } from './memory/memory.js';
