/**
 * Aggregates the sub-task results into the final answer: what was done, what
 * did not run and why, and which information is still needed (with examples).
 * Updates short-term memory, including the parked tasks for the next turn.
 */
import type { AnswerComposer } from '../answers/types.js';
import { eventWriter, ownerOf, turnContext, type NodeConfig } from '../context.js';
import { memoryAfterBusinessTurn } from '../memory/memory.js';
import { clauseClarificationText, confirmationPromptText, noticeText, summarizeStartText, unplacedPartText } from '../../i18n/index.js';
import { budgetNotices, parkedTaskLabels } from '../control/notices.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';
import type { InvalidKey, TaskOutcome, TaskPlan } from '../../planning/index.js';
import type { Logger } from '../../logger.js';
import type { ProfileStore } from '../../store/index.js';
import { profileEvidence, profileNote } from '../memory/profile-facts.js';
import { answerMayBeKept, type AnswerCache } from '../caches/answer-cache.js';
import { statesValueOutside } from '../../text/index.js';

/** agent id → key → refused value, from the task-keyed invalid keys of the plan. */
function refusedValuesByAgent(plan: TaskPlan, invalidKeys: Readonly<Record<string, readonly InvalidKey[]>>): Record<string, Record<string, string>> {
  const byAgent: Record<string, Record<string, string>> = {};
  for (const task of plan.sub_tasks) {
    for (const item of invalidKeys[task.task_id] ?? []) (byAgent[task.assigned_agent] ??= {})[item.key] = item.raw;
  }
  return byAgent;
}

/** agent id → key → the several values a side-effect task was given for one key (planning/several-values.ts). */
function severalValuesByAgent(plan: TaskPlan, invalidKeys: Readonly<Record<string, readonly InvalidKey[]>>): Record<string, Record<string, string[]>> {
  const byAgent: Record<string, Record<string, string[]>> = {};
  for (const task of plan.sub_tasks) {
    for (const item of invalidKeys[task.task_id] ?? []) if (item.several) (byAgent[task.assigned_agent] ??= {})[item.key] = [...item.several];
  }
  return byAgent;
}

export function createSummarizeNode(dependencies: { answers: AnswerComposer; profiles?: ProfileStore; logger?: Logger; answerCache?: AnswerCache }) {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const emit = eventWriter(config);
    const plan = state.task_plan!;
    const outcomes = state.task_results;
    const completed = Object.values(outcomes).filter((outcome) => outcome.status === 'completed').length;
    emit({ stage: 'summarize_start', content: summarizeStartText(context.language, completed), agent_id: 'summarize', is_thinking: true });
    const emitDelta = (delta: string) => emit({ stage: 'final', content: delta, agent_id: 'summarize', is_thinking: false, state: { delta: true } });
    // A new request on another topic drops what was parked before (seed 000's intent switch), and says so.
    const planAgents = new Set(plan.sub_tasks.map((task) => task.assigned_agent));
    const switchedFrom = state.confirm_turn ? [] : state.memory.pending.filter((task) => !planAgents.has(task.agent_id));
    // A value taken from the user's profile is said first, so the user can correct it.
    // A held task says it in its confirmation summary instead (control/confirmation.ts): nothing was done with it yet.
    const heldIds = new Set(plan.sub_tasks.filter((task) => task.status === 'awaiting_confirmation').map((task) => task.task_id));
    const profileText = profileNote(state.profile_filled.filter((fill) => !heldIds.has(fill.task_id)), context.language);
    // Notices and the confirmation prompt are only in the complete final event (streamed deltas carry the body).
    // Tasks awaiting confirmation are not results: the composer sees the rest, the confirmation prompt closes the answer.
    const rest = plan.sub_tasks.filter((task) => task.status !== 'awaiting_confirmation');
    // A hit of the answer cache (recall_answer) brings the answer itself: the composer is not asked.
    const recalled = state.answer_cache?.hit === true ? state.answer_cache.answer : undefined;
    const body =
      rest.length === 0
        ? ''
        : recalled ??
          await dependencies.answers.summarize(
            {
              query: answeredQuery(state, context.now),
              language: context.language,
              plan: rest.length === plan.sub_tasks.length ? plan : { ...plan, sub_tasks: rest, total_tasks: rest.length },
              outcomes,
              semanticInfo: state.semantic_info,
              refusedValues: refusedValuesByAgent(plan, state.invalid_keys),
              severalValues: severalValuesByAgent(plan, state.invalid_keys),
              snapshot: context.snapshot,
              now: context.now,
              history: state.memory.history,
              verification: state.verification,
            },
            context,
            emitDelta,
          );
    // Budget notices come after the body: the answer's own model call may be the one a budget refused.
    const budgetTexts = context.budget
      ? budgetNotices({ reached: context.budget.reached(), limits: context.budget.limits, tasks: plan.sub_tasks, outcomes, snapshot: context.snapshot, language: context.language })
      : [];
    const notices = [
      ...budgetTexts,
      ...(profileText ? [profileText] : []),
      ...state.notices,
      ...(switchedFrom.length > 0 ? [noticeText('topicSwitch', parkedTaskLabels(switchedFrom, context.snapshot, context.language), context.language)] : []),
    ];
    const opening = notices.length > 0 ? `${notices.join('\n')}\n\n` : '';
    const prompt = state.confirmation.length > 0 ? confirmationPromptText(state.confirmation.map((request) => request.summary), context.language) : '';
    // A part of the message no agent took: its question closes the answer, after what did run.
    const askAbout = state.intent?.askAbout;
    const question = askAbout ? clauseClarificationText(askAbout.query, askAbout.clarification.options.map((option) => option.label), context.language) : '';
    // Parts that may be requests but were neither routed nor asked about are said, not dropped.
    const unplaced = (state.intent?.unplaced ?? []).map((part) => unplacedPartText(part, context.language)).join('\n');
    const answer = `${opening}${[body, prompt, unplaced, question].filter(Boolean).join('\n\n')}`;
    const taskStates = plan.sub_tasks.map((task) => ({
      task_id: task.task_id,
      agent: task.assigned_agent,
      status: outcomes[task.task_id]?.status ?? task.status,
      ...(outcomes[task.task_id]?.reason ? { reason: outcomes[task.task_id]!.reason } : {}),
    }));
    emit({
      stage: 'final',
      content: answer,
      agent_id: 'summarize',
      is_thinking: false,
      semantic_info: state.semantic_info,
      ...(state.confirmation.length > 0 ? { confirmation: state.confirmation } : {}),
      ...(askAbout ? { clarification: askAbout.clarification } : {}),
      state: {
        delta: false,
        plan_id: plan.plan_id,
        task_type: plan.task_type,
        tasks: taskStates,
        ...(state.profile_filled.length > 0 ? { profile_filled: state.profile_filled.map(({ task_id, key, value }) => ({ task_id, key, value })) } : {}),
        ...(state.verification ? { verification: { sufficient: state.verification.sufficient, retried: state.verification.retried, judged: state.verification.judged } } : {}),
        ...(recalled !== undefined ? { cached: true } : {}),
      },
    });
    if (dependencies.answerCache && state.answer_cache && recalled === undefined && answerWorthKeeping(state, context.usage.calls, body)) {
      const kept = { answer: body, tasks: plan.sub_tasks.map((task) => keptReply(state.answer_cache!.taskKeys[task.task_id]!, outcomes[task.task_id]!)) };
      // With the turn's meaning (already read by the look-up), this replica can answer a paraphrase from it.
      if (answerMayBeKept(context.snapshot, kept)) {
        await dependencies.answerCache.remember(state.answer_cache, kept, state.answer_cache.family ? await context.meaning?.read() : undefined);
      }
    }
    const after = memoryAfterBusinessTurn({
      memory: state.memory,
      turn: {
        query: state.query,
        rewrittenQuery: state.rewritten_query,
        answer,
        agents: plan.sub_tasks.map((task) => task.assigned_agent),
      },
      tasks: plan.sub_tasks,
      outcomes: Object.fromEntries(plan.sub_tasks.map((task) => [task.task_id, outcomes[task.task_id] ?? { task_id: task.task_id, agent_id: task.assigned_agent, status: task.status }])),
      snapshot: context.snapshot,
      unresolved: state.verification?.sufficient === false,
      now: context.now,
      confirmation: state.confirmation,
      language: context.language,
      carried: state.confirm_turn ? state.memory.pending : [],
      modelSummary: state.intent?.memorySummary,
    });
    // The next turn answers the question about the unplaced part (a choice runs its words on the chosen agent) or drops it.
    const memory = askAbout
      ? { ...after, clarification: { options: askAbout.clarification.options, query: askAbout.query, language: context.language, asked_at: context.now.toISOString() } }
      : after;
    if (dependencies.profiles && state.user_id) {
      const evidence = profileEvidence({
        tasks: plan.sub_tasks,
        outcomes,
        cardOf: (id) => context.snapshot.byId.get(id),
        filled: state.profile_filled,
        language: context.language,
        sessionId: state.thread_id,
        turnId: context.turnId,
        at: context.now.toISOString(),
      });
      if (evidence.length > 0) {
        // Not awaited: on Postgres the write rides on the turn's checkpoint, written after this step (decision 0050).
        void dependencies.profiles.record(ownerOf(context, state.user_id), evidence).catch((error: unknown) => dependencies.logger?.warn({ err: error }, 'profile write failed'));
      }
    }
    return {
      final_answer: answer,
      memory,
      execution_path: [...state.execution_path, 'summarize'],
    };
  };
}

/**
 * True when this turn's answer may be kept for near-duplicates: every task
 * completed, nothing is asked of the user or awaits confirmation, the verify
 * step did not find it insufficient, and no model call failed (a template
 * answer standing in for the model's is not kept).
 */
function answerWorthKeeping(state: SupervisorState, calls: readonly { ok: boolean }[], body: string): boolean {
  const plan = state.task_plan;
  if (!plan || body.trim().length === 0) return false;
  if (state.semantic_info.length > 0 || state.confirmation.length > 0 || state.verification?.sufficient === false) return false;
  if (calls.some((call) => !call.ok)) return false;
  // An answer built on a stale reply (its agent was failing) is for this once, never kept as fresh.
  return plan.sub_tasks.every((task) => state.task_results[task.task_id]?.status === 'completed' && state.task_results[task.task_id]?.stale !== true);
}

function keptReply(key: string, outcome: TaskOutcome) {
  return {
    key,
    agent_id: outcome.agent_id,
    ...(outcome.output ? { output: outcome.output } : {}),
    ...(typeof outcome.message === 'string' ? { message: outcome.message } : {}),
  };
}

/** After summarize: escalate when consecutive unresolved turns reached `escalate_after_failures`. */
export function routeAfterSummarize(state: SupervisorState, config: NodeConfig): 'escalate' | '__end__' {
  const threshold = turnContext(config).snapshot.supervisor.escalateAfterFailures;
  return threshold > 0 && state.memory.unresolved_turns >= threshold ? 'escalate' : '__end__';
}

/**
 * The request the answer is written for: the model's rewrite, unless it states
 * a date or number the user never gave (this turn, earlier turns, or a value
 * the plan took from them) — then the user's own words, so the answer cannot
 * repeat a value the model made up.
 */
function answeredQuery(state: SupervisorState, now: Date): string {
  const rewrite = state.rewritten_query;
  if (!rewrite || rewrite === state.query) return rewrite || state.query;
  const sources = [state.query, ...state.memory.history.map((turn) => turn.query)];
  for (const task of state.task_plan?.sub_tasks ?? []) for (const value of Object.values(task.inputs)) if (typeof value === 'string' || typeof value === 'number') sources.push(String(value));
  return statesValueOutside(rewrite, sources, now) ? state.query : rewrite;
}
