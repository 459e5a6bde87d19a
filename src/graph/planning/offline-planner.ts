/**
 * The offline planner: one sub-task per matched agent, dependencies from the
 * cards' `depends_on` when both agents are in the plan, inputs from the
 * semantic keys extracted from the (rewritten) query, completed by slot memory
 * (values known from earlier turns and the inputs of parked tasks).
 */
import { extractForAgent, extractOne, orderByMention } from '../../intent/index.js';
import type { ExtractSpec } from '../../registry/types.js';
import type { AgentCard } from '../../registry/types.js';
import type { InvalidKey, SubTask, TaskPlan } from '../plan-types.js';
import type { PendingTask } from '../state.js';
import { classifyTaskType, topologicalOrder } from './dag.js';
import type { Planner, PlanRequest, PlanResult } from './types.js';

/** Builds the sub-tasks of `cards` (already filtered to enabled agents of the snapshot). */
export function buildSubTasks(
  cards: readonly AgentCard[],
  request: Pick<PlanRequest, 'query' | 'memory' | 'now' | 'planId'>,
  /** agent id → the part of the query that asked for it (the sub-task's text). */
  clauses: ReadonlyMap<string, string> = new Map(),
): { tasks: SubTask[]; invalidKeys: Record<string, InvalidKey[]> } {
  const taskIdOf = new Map(cards.map((card, index) => [card.id, `${request.planId}_task_${index + 1}`]));
  const invalidKeys: Record<string, InvalidKey[]> = {};
  const tasks = cards.map((card): SubTask => {
    const taskId = taskIdOf.get(card.id)!;
    const extraction = extractForAgent(request.query, card, request.now);
    const pending = request.memory.pending.find((task) => task.agent_id === card.id);
    const inputs = fillFromMemory(card, extraction.values, extraction.invalid, pending, request.memory.known_values);
    for (const [key, value] of Object.entries(extractOptionalInputs(request.query, card, request.now))) inputs[key] ??= value;
    if (extraction.invalid.length > 0) invalidKeys[taskId] = extraction.invalid.map((item) => ({ ...item }));
    return {
      task_id: taskId,
      description: clauses.get(card.id) ?? request.query,
      assigned_agent: card.id,
      inputs,
      dependencies: card.dependsOn.filter((id) => taskIdOf.has(id)).map((id) => taskIdOf.get(id)!),
      status: 'pending',
    };
  });
  return { tasks: topologicalOrder(tasks), invalidKeys };
}

/**
 * Current extraction wins; then the parked task's inputs; then slot memory.
 * Slot memory only completes a task that was parked waiting for the user, so a
 * fresh request is never silently filled with values from an older one.
 * Invalid keys stay unfilled.
 */
function fillFromMemory(
  card: AgentCard,
  extracted: Record<string, string | number>,
  invalid: readonly InvalidKey[],
  pending: PendingTask | undefined,
  known: Record<string, string | number>,
): Record<string, unknown> {
  const inputs: Record<string, unknown> = { ...(pending?.inputs ?? {}) };
  for (const spec of card.requiredKeys) {
    if (invalid.some((item) => item.key === spec.key)) {
      delete inputs[spec.key];
      continue;
    }
    if (extracted[spec.key] !== undefined) inputs[spec.key] = extracted[spec.key];
    else if (pending && inputs[spec.key] === undefined && known[spec.key] !== undefined) inputs[spec.key] = known[spec.key];
  }
  return inputs;
}

/**
 * Optional inputs (input_schema properties that are not required keys) that can
 * be read from text without guessing: `format: date` properties and `enum`
 * properties. Others are left to the agent (or to the LLM planner).
 */
export function extractOptionalInputs(text: string, card: AgentCard, now: Date): Record<string, string | number> {
  const properties = (card.inputSchema?.properties ?? {}) as Record<string, { format?: unknown; enum?: unknown }>;
  const required = new Set(card.requiredKeys.map((spec) => spec.key));
  const found: Record<string, string | number> = {};
  for (const [key, property] of Object.entries(properties)) {
    if (required.has(key) || typeof property !== 'object' || property === null) continue;
    let spec: ExtractSpec | undefined;
    if (property.format === 'date') spec = { type: 'date' };
    else if (Array.isArray(property.enum) && property.enum.every((value) => typeof value === 'string')) spec = { type: 'enum', values: property.enum as string[] };
    if (!spec) continue;
    const outcome = extractOne(text, spec, now);
    if (outcome && 'value' in outcome) found[key] = outcome.value;
  }
  return found;
}

/** Assembles a `TaskPlan` from sub-tasks. */
export function assemblePlan(planId: string, tasks: SubTask[], reasoning: string, message: string): TaskPlan {
  return {
    plan_id: planId,
    task_type: classifyTaskType(tasks),
    sub_tasks: tasks,
    reasoning,
    total_tasks: tasks.length,
    missing_semantic_keys: [],
    user_friendly_message: message,
  };
}

/** Creates the planner used when no LLM is configured (and as the LLM's fallback). */
export function createOfflinePlanner(): Planner {
  return {
    async plan(request: PlanRequest): Promise<PlanResult> {
      // Tasks follow the order the user mentioned them (then rank), so results read in that order.
      const cards = orderByMention(request.intents, request.query)
        .map((intent) => request.snapshot.byId.get(intent.agentId))
        .filter((card): card is AgentCard => card !== undefined && card.enabled);
      const unique = [...new Map(cards.map((card) => [card.id, card])).values()];
      const clauses = new Map(request.intents.flatMap((intent) => (intent.clause ? [[intent.agentId, intent.clause] as const] : [])));
      const { tasks, invalidKeys } = buildSubTasks(unique, request, clauses);
      const names = unique.map((card) => card.name).join('、');
      return {
        plan: assemblePlan(request.planId, tasks, `matched capabilities: ${names}`, ''),
        invalidKeys,
      };
    },
  };
}
