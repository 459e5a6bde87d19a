/**
 * The rule check of the verify step (docs/api.md#model-replies), run after every
 * execution, with or without a model: a completed read-only sub-task whose
 * output is empty, or whose message says nothing was found, did not answer.
 *
 * "Empty" means no data at all: no output, `{}`, or only empty strings,
 * arrays, objects and nulls. The contract makes no exception for an agent
 * without `output_schema` or for a reply that carries a message: a read-only
 * task is there to fetch data, and a message alone is not data (the message
 * still reaches the answer).
 */
import type { AgentCard } from '../../registry/index.js';
import type { SubTask, TaskOutcome } from '../../planning/index.js';

/** Why a completed task's reply does not answer. */
export type Insufficiency = 'empty' | 'nothing_found';

/** One insufficient task. */
export interface InsufficientTask {
  task_id: string;
  agent_id: string;
  reason: Insufficiency | 'judged';
  /** The judge's words when the model found it insufficient. */
  detail?: string;
}

const NOTHING_FOUND = [
  /未(?:能)?(?:找到|查到|查询到|搜索到|检索到)/,
  /没(?:有)?(?:找到|查到|查询到|搜到|相关|结果|数据|记录)/,
  /查不到|找不到|查无|暂无(?:相关)?(?:结果|数据|信息|记录)|无(?:相关|匹配|查询)?结果/,
  /\b(?:nothing|no (?:results?|matches|matching \w+|data|records?|information)) (?:was |were )?(?:found|available)\b/i,
  /\bno (?:results?|matches|data|records)\b/i,
  /\b(?:could ?n[o']t|can ?n[o']t|unable to|did ?n[o']t|failed to) find\b/i,
  /\bnot found\b/i,
  /\bfound nothing\b/i,
];

/** True when the text says that nothing was found. */
export function saysNothingFound(text: string | undefined): boolean {
  if (!text) return false;
  return NOTHING_FOUND.some((pattern) => pattern.test(text));
}

/** True when a value holds no data (see the file header). */
export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.every(isEmptyValue);
  if (typeof value === 'object') return Object.values(value as Record<string, unknown>).every(isEmptyValue);
  return false;
}

/** Why a completed reply does not answer, or null when it does. */
export function insufficiencyOf(reply: { output?: Record<string, unknown>; message?: string }): Insufficiency | null {
  if (saysNothingFound(reply.message)) return 'nothing_found';
  if (isEmptyValue(reply.output)) return 'empty';
  return null;
}

/** The completed read-only tasks of a plan whose replies do not answer. */
export function ruleCheck(
  tasks: readonly SubTask[],
  outcomes: Readonly<Record<string, TaskOutcome>>,
  cardOf: (agentId: string) => AgentCard | undefined,
): InsufficientTask[] {
  const found: InsufficientTask[] = [];
  for (const task of tasks) {
    const outcome = outcomes[task.task_id];
    const card = cardOf(task.assigned_agent);
    if (!outcome || outcome.status !== 'completed' || !card || card.sideEffects === true) continue;
    const reason = insufficiencyOf(outcome);
    if (reason) found.push({ task_id: task.task_id, agent_id: card.id, reason });
  }
  return found;
}
