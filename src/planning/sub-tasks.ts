/**
 * Sub-tasks from clauses, shared by both planners: one sub-task per agent,
 * dependencies from the cards' `depends_on` when both agents are in the plan,
 * inputs from the semantic keys of each agent's own clause of the (rewritten)
 * query, completed by slot memory (values known from earlier turns and the
 * inputs of parked tasks); and the plan assembled around them. The offline
 * planner is these alone; the LLM planner checks its draft against them.
 */
import { isFollowUp } from '../understanding/index.js';
import { attributeClauseValues, type AgentClauseValues } from './clause-values.js';
import { extractOne, orderByMention } from '../text/index.js';
import type { AgentCard, ExtractSpec } from '../registry/index.js';
import type { InvalidKey, SubTask, TaskPlan } from './plan-types.js';
import type { PendingTask } from '../store/index.js';
import { classifyTaskType, topologicalOrder } from './dag.js';
import { splitSeveralValues } from './several-values.js';
import { readPlanTexts, type PlanTexts } from './plan-texts.js';
import type { Planner, PlanRequest, PlanResult } from './types.js';

/** Builds the sub-tasks of `cards` (already filtered to enabled agents of the snapshot); `texts` when the caller read them already. */
export function buildSubTasks(
  cards: readonly AgentCard[],
  request: Pick<PlanRequest, 'query' | 'turnQuery' | 'reading' | 'queryIsTyped' | 'intents' | 'memory' | 'now' | 'planId'>,
  texts: PlanTexts = readPlanTexts(request, cards),
): { tasks: SubTask[]; invalidKeys: Record<string, InvalidKey[]>; attributed: Map<string, AgentClauseValues> } {
  const taskIdOf = new Map(cards.map((card, index) => [card.id, `${request.planId}_task_${index + 1}`]));
  const invalidKeys: Record<string, InvalidKey[]> = {};
  // Each agent reads its keys from its own clause of the query (see planning/clause-values.ts).
  const attributed = attributeClauseValues({
    // The turn's reading split the user's text once; reused when the plan is made from that very text (`plan-texts.ts`).
    text: texts.query,
    ...(texts.turn ? { turnText: texts.turn.normal } : {}),
    intents: request.intents,
    cards,
    pendingAgents: request.memory.pending.map((task) => task.agent_id),
    now: request.now,
  });
  // "那物流呢" after an order lookup goes on with the values of this session's previous request.
  const followUp = isFollowUp((texts.turn ?? texts.query).normal.trim());
  const tasks = cards.map((card): SubTask => {
    const taskId = taskIdOf.get(card.id)!;
    const own = attributed.get(card.id)!;
    const pending = request.memory.pending.find((task) => task.agent_id === card.id);
    const inputs = fillFromMemory(card, own.extraction.values, own.extraction.invalid, pending, request.memory.known_values, followUp);
    for (const [key, value] of Object.entries(extractOptionalInputs(own.text, card, request.now))) inputs[key] ??= value;
    if (own.extraction.invalid.length > 0) invalidKeys[taskId] = own.extraction.invalid.map((item) => ({ ...item }));
    return {
      task_id: taskId,
      description: pending && changedKeys(pending.inputs, inputs).length > 0 ? correctedDescription(pending, inputs, request.turnQuery ?? own.text) : describeTask(own, pending, request.query, inputs),
      assigned_agent: card.id,
      inputs,
      dependencies: card.dependsOn.filter((id) => taskIdOf.has(id)).map((id) => taskIdOf.get(id)!),
      status: 'pending',
    };
  });
  // Several values for one key: a task per value, or the side effect asks which (planning/several-values.ts).
  const several = splitSeveralValues({
    tasks,
    cardOf: (agentId) => cards.find((card) => card.id === agentId),
    textOf: (agentId) => (attributed.get(agentId)?.scope === 'clause' ? attributed.get(agentId)!.text : undefined),
    invalidKeys,
    planId: request.planId,
    now: request.now,
  });
  return { tasks: topologicalOrder(several.tasks), invalidKeys: several.invalidKeys, attributed };
}

/**
 * The sub-task's message: its own clause; a parked request's earlier words plus
 * this turn's answer when the answer gave it a value it lacked (an answer to
 * another parked task's question is not added to this one); else the whole query.
 */
function describeTask(own: AgentClauseValues, pending: PendingTask | undefined, query: string, inputs: Readonly<Record<string, unknown>>): string {
  if (own.scope === 'clause') return own.text;
  if (own.scope === 'answer' && pending?.description.trim()) {
    const answered = Object.keys(inputs).some((key) => inputs[key] !== undefined && pending.inputs[key] === undefined);
    return answered ? joinNewWords(pending.description.trim(), own.text) : pending.description.trim();
  }
  return query;
}

/** Two pieces of a message joined in their own script: "，" between Chinese words, ", " otherwise. */
/** Two texts as one, joined the way the language of either joins clauses. */
export function joinWords(first: string, second: string): string {
  if (second.trim().length === 0) return first;
  return `${first}${/[\u3400-\u9fff]/u.test(first + second) ? '，' : ', '}${second.trim()}`;
}

/**
 * A parked request's words and this turn's, each said once: the answer may come back inside a rewrite that
 * already holds the request's words ("把套餐换成畅享99，13912345678"), which is then the whole message.
 */
function joinNewWords(earlier: string, added: string): string {
  const trimmed = added.trim();
  if (trimmed.includes(earlier)) return trimmed;
  if (earlier.includes(trimmed)) return earlier;
  return joinWords(earlier, trimmed);
}

/** Keys whose value differs from the parked task's. */
function changedKeys(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(before).filter((key) => before[key] !== undefined && after[key] !== undefined && before[key] !== after[key]);
}

/**
 * The description of a parked task whose values this turn corrected: its old
 * words with each corrected value written in place of the old one, so the
 * agent's message and the confirmation never state the old value; when an old
 * value is not written there as such (a date said as "明天"), the correction's
 * own words are added.
 */
function correctedDescription(pending: PendingTask, inputs: Readonly<Record<string, unknown>>, correction: string): string {
  let description = pending.description.trim();
  let unplaced = false;
  for (const key of changedKeys(pending.inputs, inputs)) {
    const before = String(pending.inputs[key]);
    if (before.length > 0 && description.includes(before)) description = description.split(before).join(String(inputs[key]));
    else unplaced = true;
  }
  return unplaced && correction.trim() ? joinNewWords(description, correction) : description;
}

/**
 * Current extraction wins; then the parked task's inputs; then slot memory.
 * Slot memory only completes a task that was parked waiting for the user, or
 * one asked for by a follow-up of the previous turn ("那物流呢"), so a fresh
 * request is never silently filled with values from an older one; and
 * never a task with side effects, whose values come only from the user's own
 * words for it (its clause, its parked inputs, the answer to its question).
 * Invalid keys stay unfilled.
 */
function fillFromMemory(
  card: AgentCard,
  extracted: Record<string, string | number>,
  invalid: readonly InvalidKey[],
  pending: PendingTask | undefined,
  known: Record<string, string | number>,
  followUp: boolean,
): Record<string, unknown> {
  const inputs: Record<string, unknown> = { ...(pending?.inputs ?? {}) };
  const fromMemory = (pending !== undefined || followUp) && !card.sideEffects;
  for (const spec of card.requiredKeys) {
    if (invalid.some((item) => item.key === spec.key)) {
      delete inputs[spec.key];
      continue;
    }
    if (extracted[spec.key] !== undefined) inputs[spec.key] = extracted[spec.key];
    else if (fromMemory && inputs[spec.key] === undefined && known[spec.key] !== undefined) inputs[spec.key] = known[spec.key];
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
