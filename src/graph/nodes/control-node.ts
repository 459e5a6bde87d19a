/**
 * Conversation control, before intent recognition (seed 000's pre-step, seed
 * 001's timeout and "取消"):
 * 1. parked tasks older than `pending_ttl_s` expire;
 * 2. a confirmation — body fields `confirm` / `reject` with task ids, or a
 *    message that is only a yes / no word while tasks await confirmation —
 *    runs exactly the confirmed tasks (straight to execute) or answers;
 *    ids that await nothing (handled, expired, forged) never run anything,
 *    and a task whose agent a registry edit removed or disabled is cancelled;
 * 3. a message that is only a cancel word drops every parked task;
 * 4. a strongly negative message is marked for escalation after intent.
 * Anything else goes on to intent recognition with the live parked tasks.
 */
import type { EmotionScorer } from '../../escalation/emotion.js';
import type { RegistrySnapshot } from '../../registry/types.js';
import { planFromConfirmed } from '../control/confirmation.js';
import { askAgainText, confirmedPlanStartText, noticeText, nothingToCancelText, runningConfirmedText, unknownConfirmationText } from '../../i18n/index.js';
import { parkedTaskLabels } from '../control/notices.js';
import { classifyReplyWord } from '../control/classify-reply-word.js';
import { eventWriter, turnContext, type NodeConfig } from '../context.js';
import { rememberTurn } from '../memory/memory.js';
import type { PendingTask, SessionMemory, SupervisorState, SupervisorUpdate } from '../state.js';
import { newPlanId } from './plan-node.js';

export interface ControlDependencies {
  emotion: EmotionScorer;
}

/** Default of `supervisor.pending_ttl_s` for snapshots built without it. */
const DEFAULT_PENDING_TTL_S = 600;

/** Splits parked tasks into live and expired at `now`; a task without a parking time never expires. */
export function expireParked(pending: readonly PendingTask[], now: Date, ttlSeconds: number): { live: PendingTask[]; expired: PendingTask[] } {
  const live: PendingTask[] = [];
  const expired: PendingTask[] = [];
  for (const task of pending) {
    const parkedAt = task.parked_at ? Date.parse(task.parked_at) : Number.NaN;
    (Number.isFinite(parkedAt) && now.getTime() - parkedAt > ttlSeconds * 1000 ? expired : live).push(task);
  }
  return { live, expired };
}

export function createControlNode(dependencies: ControlDependencies) {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const emit = eventWriter(config);
    const { snapshot } = context;
    const ttlSeconds = snapshot.supervisor.pendingTtlS ?? DEFAULT_PENDING_TTL_S;
    const { live, expired } = expireParked(state.memory.pending, context.now, ttlSeconds);
    const awaiting = live.filter((task) => task.confirmation && task.task_id);
    // A body-only confirmation has no text to detect the language from: answer in the parked task's language.
    if (state.query.trim() === '') {
      const language = [...awaiting, ...expired].find((task) => task.confirmation)?.confirmation?.language;
      if (language) context.language = language;
    }
    const { language } = context;
    const notices = expired.length > 0 ? [noticeText('expired', parkedTaskLabels(expired, snapshot, language), language, ttlSeconds)] : [];
    const memory: SessionMemory = { ...state.memory, pending: live };
    const path = [...state.execution_path, 'control'];

    const reply = (lines: string[], pending: PendingTask[]): SupervisorUpdate => {
      const answer = lines.join('\n');
      emit({ stage: 'final', content: answer, agent_id: 'supervisor', is_thinking: false, state: { delta: false, kind: 'control' } });
      return {
        final_answer: answer,
        execution_path: path,
        memory: {
          ...memory,
          pending,
          history: rememberTurn(memory, { query: state.query, rewrittenQuery: state.query, answer, agents: [] }, snapshot.supervisor.memoryMaxHistory),
        },
      };
    };

    const word = classifyReplyWord(state.query);
    const byFields = state.confirm.length > 0 || state.reject.length > 0;
    let confirmIds: string[] = [];
    let rejectIds: string[] = [];
    if (byFields) {
      rejectIds = [...new Set(state.reject)];
      confirmIds = [...new Set(state.confirm)].filter((id) => !rejectIds.includes(id));
    } else if (word === 'cancel') {
      if (live.length === 0) return reply([...notices, ...(notices.length ? [] : [nothingToCancelText(language)])], []);
      return reply([...notices, noticeText('cancelled', parkedTaskLabels(live, snapshot, language), language)], []);
    } else if (word && awaiting.length > 0) {
      (word === 'yes' ? confirmIds : rejectIds).push(...awaiting.map((task) => task.task_id!));
    } else if (word === 'yes' && expired.some((task) => task.confirmation)) {
      return reply([...notices, askAgainText(language)], live);
    }

    if (confirmIds.length === 0 && rejectIds.length === 0) {
      const emotion = dependencies.emotion.score(state.query, snapshot.supervisor.escalation);
      const threshold = snapshot.supervisor.escalation?.emotionThreshold ?? 2.5;
      return {
        memory,
        notices,
        execution_path: path,
        escalation: emotion.score >= threshold ? { reason: 'emotion', words: emotion.words } : null,
      };
    }

    const awaitingById = new Map(awaiting.map((task) => [task.task_id!, task]));
    const expiredIds = new Set(expired.map((task) => task.task_id).filter((id): id is string => id !== undefined));
    const pick = (ids: string[]) => ids.map((id) => awaitingById.get(id)).filter((task): task is PendingTask => task !== undefined);
    const confirmed = pick(confirmIds);
    const rejected = pick(rejectIds);
    const unmatched = [...confirmIds, ...rejectIds].filter((id) => !awaitingById.has(id) && !expiredIds.has(id));
    const available = (task: PendingTask) => snapshot.byId.get(task.agent_id)?.enabled === true;
    const unavailable = confirmed.filter((task) => !available(task));
    const runnable = withWaitingDependents(confirmed.filter(available), live, snapshot);
    const touched = new Set([...runnable, ...confirmed, ...rejected]);
    const remaining = live.filter((task) => !touched.has(task));

    if (rejected.length > 0) notices.push(noticeText('rejected', parkedTaskLabels(rejected, snapshot, language), language));
    if (unavailable.length > 0) notices.push(noticeText('unavailable', parkedTaskLabels(unavailable, snapshot, language), language));
    if (unmatched.length > 0) notices.push(unknownConfirmationText(language));
    if (runnable.length === 0) return reply(notices, remaining);

    const message = runningConfirmedText(parkedTaskLabels(runnable, snapshot, language), language);
    const plan = planFromConfirmed(runnable, snapshot, newPlanId(context.now), message);
    emit({ stage: 'plan_start', content: confirmedPlanStartText(language), agent_id: 'supervisor', is_thinking: true });
    emit({ stage: 'plan_done', content: message, agent_id: 'supervisor', is_thinking: true, state: { task_plan: plan, confirmed: runnable.map((task) => task.task_id) } });
    return {
      memory: { ...memory, pending: remaining },
      notices,
      task_plan: plan,
      confirm_turn: true,
      rewritten_query: runnable.map((task) => task.description).join(language === 'zh' ? '；' : '; '),
      execution_path: path,
    };
  };
}

/**
 * The confirmed tasks plus read-only parked tasks that only waited for them
 * (no keys missing, their agent depends on a confirmed one): they run in the
 * same turn, after the task they wait for.
 */
function withWaitingDependents(confirmed: PendingTask[], live: readonly PendingTask[], snapshot: RegistrySnapshot): PendingTask[] {
  const tasks = [...confirmed];
  let added = true;
  while (added) {
    added = false;
    const agents = new Set(tasks.map((task) => task.agent_id));
    for (const task of live) {
      if (tasks.includes(task) || task.confirmation || task.missing_keys.length > 0 || !task.task_id) continue;
      const card = snapshot.byId.get(task.agent_id);
      if (card?.enabled === true && card.sideEffects !== true && card.dependsOn.some((id) => agents.has(id))) {
        tasks.push(task);
        added = true;
      }
    }
  }
  return tasks;
}

/** After control: run confirmed tasks, end after a direct reply, or go on to intent recognition. */
export function routeAfterControl(state: SupervisorState): 'execute' | 'recognize_intent' | '__end__' {
  if (state.task_plan) return 'execute';
  if (state.final_answer) return '__end__';
  return 'recognize_intent';
}
