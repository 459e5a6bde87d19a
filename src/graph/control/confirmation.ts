/**
 * Confirmation of side effects (seed 001's read/write isolation, docs/api.md#conversation-rules):
 * a sub-task of a `side_effects` agent is never sent in the turn that plans it.
 * Once it has every key it is held as `awaiting_confirmation` with a summary of
 * exactly what will be done; a later turn that confirms its task id runs it
 * with the same task id (the agent's idempotency key) and the same inputs.
 * Keys come first: a task still missing keys is parked for them as usual and
 * asks for confirmation once they are given.
 */
import { type AgentCard, cardName, keyDescription, type RegistrySnapshot } from '../../registry/index.js';
import { confirmationSummaryText, dateLabelText, profileValueText, type Language } from '../../i18n/index.js';
import type { ConfirmationRequest } from '../../events/index.js';
import { classifyTaskType, type SubTask, type TaskPlan, topologicalOrder } from '../../planning/index.js';
import type { PendingTask } from '../state.js';

function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * "酒店服务：帮我订北京的酒店（入住城市：北京，入住日期：2026-12-01）" — what will be done, with its inputs; a value
 * taken from the user's profile is said to be ("使用您常用的入住城市 上海"), so the user sees it before saying yes.
 */
export function confirmationSummary(task: Pick<SubTask, 'description' | 'inputs' | 'sources'>, card: AgentCard, language: Language): string {
  const properties = (card.inputSchema?.properties ?? {}) as Record<string, { description?: unknown; format?: unknown }>;
  const labelOf = (key: string) => {
    const spec = card.requiredKeys.find((candidate) => candidate.key === key);
    if (spec) return keyDescription(spec, language);
    const described = properties[key]?.description;
    if (typeof described === 'string' && described.trim()) return described.trim();
    if (properties[key]?.format === 'date') return dateLabelText(language);
    return key;
  };
  const inputs = Object.entries(task.inputs)
    .filter(([, value]) => value !== undefined && value !== null && value !== '')
    .map(([key, value]) => ({ label: labelOf(key), value: valueText(value) }));
  const what = task.description.trim().replace(/[。.!！]+$/u, '');
  const summary = confirmationSummaryText(language, cardName(card, language), what, inputs);
  const fromProfile = Object.entries(task.sources ?? {})
    .filter(([key, source]) => source.kind === 'profile' && task.inputs[key] !== undefined)
    .map(([key]) => ({ description: labelOf(key), value: valueText(task.inputs[key]) }));
  return fromProfile.length > 0 ? `${summary}${profileValueText(language, fromProfile)}` : summary;
}

/**
 * Holds every dispatchable side-effect task of the plan for confirmation;
 * tasks that depend on a held one wait with it (a read-only one is parked, a
 * side-effect one is held too, so both can be confirmed in one reply).
 */
export function holdSideEffects(plan: TaskPlan, snapshot: RegistrySnapshot, language: Language): { plan: TaskPlan; confirmation: ConfirmationRequest[] } {
  const held = new Set<string>();
  const confirmation: ConfirmationRequest[] = [];
  const tasks = plan.sub_tasks.map((task) => ({ ...task }));
  for (const task of tasks) {
    if (task.status !== 'pending') continue;
    const card = snapshot.byId.get(task.assigned_agent);
    const waits = task.dependencies.some((id) => held.has(id));
    if (card?.sideEffects === true) {
      task.status = 'awaiting_confirmation';
      held.add(task.task_id);
      confirmation.push({ task_id: task.task_id, sub_agent_id: card.id, summary: confirmationSummary(task, card, language), inputs: { ...task.inputs } });
    } else if (waits) {
      task.status = 'parked';
      held.add(task.task_id);
    }
  }
  return { plan: { ...plan, sub_tasks: tasks }, confirmation };
}

/**
 * The plan of a confirmation turn: the confirmed parked tasks, with their
 * task ids and inputs, and dependencies between them from the cards.
 */
export function planFromConfirmed(tasks: readonly PendingTask[], snapshot: RegistrySnapshot, planId: string, message: string): TaskPlan {
  const taskIdOf = new Map(tasks.map((task) => [task.agent_id, task.task_id!]));
  const subTasks: SubTask[] = tasks.map((task) => ({
    task_id: task.task_id!,
    description: task.description,
    assigned_agent: task.agent_id,
    inputs: { ...task.inputs },
    ...(task.sources ? { sources: { ...task.sources } } : {}),
    dependencies: (snapshot.byId.get(task.agent_id)?.dependsOn ?? []).filter((id) => taskIdOf.has(id)).map((id) => taskIdOf.get(id)!),
    status: 'pending',
  }));
  const ordered = topologicalOrder(subTasks);
  return {
    plan_id: planId,
    task_type: classifyTaskType(ordered),
    sub_tasks: ordered,
    reasoning: 'confirmed by the user',
    total_tasks: ordered.length,
    missing_semantic_keys: [],
    user_friendly_message: message,
  };
}
