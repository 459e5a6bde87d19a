/**
 * Planning: from the recognised intents (and a model's draft) to a task plan —
 * the values each clause gives its agent, the draft's schema, the offline and
 * LLM planners, the plan's dependency graph, its scheduler and sub-task budget.
 */
export { attributeClauseValues, readAsAnswer, type AgentClauseValues, type ClauseValuesRequest } from './clause-values.js';
export { DRAFT_SUB_TASK_SCHEMA, TASK_PLAN_DRAFT_SCHEMA, type DraftPlanEnvelope, type DraftSubTask, type DraftTaskPlan } from './draft-schema.js';
export { createDraftReader, type DraftReader, type DraftSource } from './draft-reader.js';
export { classifyTaskType, dependentsOf, findCycle, topologicalOrder } from './dag.js';
export { createLlmPlanner } from './llm-planner.js';
export { createOfflinePlanner } from './offline-planner.js';
export { runTaskGraph, type ScheduleOptions } from './scheduler.js';
export { selectWithinSubtaskBudget } from './subtask-budget.js';
export type { InvalidKey, SubTask, TaskOutcome, TaskPlan, TaskStatus, TaskType } from './plan-types.js';
export type { PlanMemory, Planner, PlanRequest, PlanResult, RankedIntent } from './types.js';
export { keyOptions, keyRequest, type KeyRequest, type KeyRequestOptions } from './key-request.js';
export { checkKeyValue, checkPlanSemantics, type SemanticCheckResult } from './semantic-check.js';
