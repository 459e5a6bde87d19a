/**
 * recall_answer: between the semantic check and execution, looks the plan up
 * in the answer cache (caches/answer-cache.ts). A hit fills the task results from
 * the kept replies and goes straight to summarize, which gives the kept
 * answer: no agent and no model is called. The client still sees each task
 * answered: agent_start and agent_done (`metadata.state.cached: true`, the
 * kept output and message) per task in plan order, the events a response
 * cache hit gives (dispatch/task-dispatch.ts). A miss (or a plan that may not be
 * cached) runs the turn as usual; summarize keeps its answer when the turn
 * completed whole.
 */
import type { AnswerCache } from '../caches/answer-cache.js';
import { answerCacheKey } from '../caches/answer-cache.js';
import { eventWriter, ownerOf, turnContext, type NodeConfig } from '../context.js';
import { agentDoneText, agentStartText } from '../../i18n/index.js';
import { cardName } from '../../registry/index.js';
import type { TaskOutcome } from '../../planning/index.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';

export function createRecallAnswerNode(dependencies: { answerCache?: AnswerCache }) {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const path = [...state.execution_path, 'recall_answer'];
    const plan = state.task_plan;
    if (!dependencies.answerCache || !plan || state.confirm_turn) return { answer_cache: null, execution_path: path };
    const context = turnContext(config);
    const key = answerCacheKey({
      snapshot: context.snapshot,
      owner: ownerOf(context, state.user_id),
      language: context.language,
      plan,
      rewrittenQuery: state.rewritten_query,
      texts: [state.query, state.rewritten_query],
      profileFilled: state.profile_filled.length > 0,
      question: context.message.normal,
      today: context.now,
    });
    if (!key) return { answer_cache: null, execution_path: path };
    // On an exact miss, a question of the same family asked in other words may share the answer (its meaning is
    // the turn's one reading of the message; without an embeddings endpoint there is none).
    const meaning = context.meaning;
    const kept = await dependencies.answerCache.lookup(key, meaning ? () => meaning.read() : undefined);
    const byKey = new Map((kept?.tasks ?? []).map((task) => [task.key, task]));
    const replies = plan.sub_tasks.map((task) => ({ task, reply: byKey.get(key.taskKeys[task.task_id]!) }));
    if (!kept || replies.some(({ task, reply }) => reply?.agent_id !== task.assigned_agent)) {
      return { answer_cache: { ...key, hit: false }, execution_path: path };
    }
    const emit = eventWriter(config);
    const outcomes: Record<string, TaskOutcome> = {};
    for (const { task, reply } of replies) {
      const card = context.snapshot.byId.get(task.assigned_agent)!;
      const name = cardName(card, context.language);
      emit({ stage: 'agent_start', content: agentStartText(context.language, name), agent_id: card.id, is_thinking: true, state: { task_id: task.task_id } });
      emit({
        stage: 'agent_done',
        content: reply!.message?.trim() || agentDoneText(context.language, name),
        agent_id: card.id,
        is_thinking: true,
        state: { task_id: task.task_id, status: 'completed', output: reply!.output ?? {}, cached: true },
      });
      outcomes[task.task_id] = {
        task_id: task.task_id,
        agent_id: task.assigned_agent,
        status: 'completed',
        ...(reply!.output ? { output: reply!.output } : {}),
        ...(typeof reply!.message === 'string' ? { message: reply!.message } : {}),
        attempts: 0,
        duration_ms: 0,
        cached: true,
      };
    }
    context.answerCached = true;
    return {
      answer_cache: { ...key, hit: true, answer: kept.answer },
      task_results: { ...state.task_results, ...outcomes },
      execution_path: path,
    };
  };
}

/** After recall_answer: a kept answer goes straight to summarize. */
export function routeAfterRecall(state: SupervisorState): 'summarize' | 'execute' {
  return state.answer_cache?.hit === true ? 'summarize' : 'execute';
}
