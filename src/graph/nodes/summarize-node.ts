/**
 * Aggregates the sub-task results into the final answer: what was done, what
 * did not run and why, and which information is still needed (with examples).
 * Updates short-term memory, including the parked tasks for the next turn.
 */
import type { AnswerComposer } from '../answers/types.js';
import { eventWriter, ownerOf, turnContext, type NodeConfig } from '../context.js';
import { memoryAfterBusinessTurn } from '../memory.js';
import { confirmationPromptText, noticeText, summarizeStartText } from '../../i18n/index.js';
import { budgetNotices, parkedTaskLabels } from '../control/notices.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';
import type { InvalidKey, TaskPlan } from '../plan-types.js';
import type { Logger } from '../../logger.js';
import type { ProfileStore } from '../../store/types.js';
import { profileEvidence, profileNote } from '../profile-facts.js';

/** agent id → key → refused value, from the task-keyed invalid keys of the plan. */
function refusedValuesByAgent(plan: TaskPlan, invalidKeys: Readonly<Record<string, readonly InvalidKey[]>>): Record<string, Record<string, string>> {
  const byAgent: Record<string, Record<string, string>> = {};
  for (const task of plan.sub_tasks) {
    for (const item of invalidKeys[task.task_id] ?? []) (byAgent[task.assigned_agent] ??= {})[item.key] = item.raw;
  }
  return byAgent;
}

export function createSummarizeNode(dependencies: { answers: AnswerComposer; profiles?: ProfileStore; logger?: Logger }) {
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
    const profileText = profileNote(state.profile_filled, context.language);
    // Notices and the confirmation prompt are only in the complete final event (streamed deltas carry the body).
    // Tasks awaiting confirmation are not results: the composer sees the rest, the confirmation prompt closes the answer.
    const rest = plan.sub_tasks.filter((task) => task.status !== 'awaiting_confirmation');
    const body =
      rest.length === 0
        ? ''
        : await dependencies.answers.summarize(
            {
              query: state.rewritten_query,
              language: context.language,
              plan: rest.length === plan.sub_tasks.length ? plan : { ...plan, sub_tasks: rest, total_tasks: rest.length },
              outcomes,
              semanticInfo: state.semantic_info,
              refusedValues: refusedValuesByAgent(plan, state.invalid_keys),
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
    const answer = `${opening}${[body, prompt].filter(Boolean).join('\n\n')}`;
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
      state: {
        delta: false,
        plan_id: plan.plan_id,
        task_type: plan.task_type,
        tasks: taskStates,
        ...(state.profile_filled.length > 0 ? { profile_filled: state.profile_filled.map(({ task_id, key, value }) => ({ task_id, key, value })) } : {}),
        ...(state.verification ? { verification: { sufficient: state.verification.sufficient, retried: state.verification.retried, judged: state.verification.judged } } : {}),
      },
    });
    const memory = memoryAfterBusinessTurn({
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
        await dependencies.profiles.record(ownerOf(context, state.user_id), evidence).catch((error: unknown) => dependencies.logger?.warn({ err: error }, 'profile write failed'));
      }
    }
    return {
      final_answer: answer,
      memory,
      execution_path: [...state.execution_path, 'summarize'],
    };
  };
}

/** After summarize: escalate when consecutive unresolved turns reached `escalate_after_failures`. */
export function routeAfterSummarize(state: SupervisorState, config: NodeConfig): 'escalate' | '__end__' {
  const threshold = turnContext(config).snapshot.supervisor.escalateAfterFailures;
  return threshold > 0 && state.memory.unresolved_turns >= threshold ? 'escalate' : '__end__';
}
