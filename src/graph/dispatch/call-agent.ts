/**
 * Dispatch step 2, the call: recorded before it is sent (a crash leaves an
 * auditable trace), sent with the turn's signal and time budget, upstream
 * outputs with other agents' secrets and undeclared personal values taken out,
 * the agent's progress streamed through the content guard as `agent_stream`,
 * the call counted and its record settled.
 */
import type { AgentOutcome } from '../../agents/index.js';
import type { TaskOutcome } from '../../planning/index.js';
import { agentSecrets, createSubAgentText, redactSecretsDeep } from '../../privacy/index.js';
import { agentFailedEvent } from '../agent-failed-event.js';
import type { NodeEvent } from '../context.js';
import type { DispatchTurn } from './dispatch-types.js';
import type { PreparedTask } from './prepare-task.js';

/** What came back: the outcome (a call cut by the turn's time budget reads as such), its failure code, and the reply's message as guarded. */
export interface AgentCall {
  outcome: AgentOutcome;
  /** `max_turn_ms` when the turn's time budget cut the call, else the outcome's code; absent on success. */
  failureCode?: string;
  /** The reply's message after the guard saw progress and message as one text. */
  message: string | undefined;
}

/** Calls the prepared task's agent; the task's outcome instead when the dispatch could not be recorded. */
export async function callAgent(turn: DispatchTurn, prepared: PreparedTask, upstream: readonly TaskOutcome[]): Promise<AgentCall | { done: TaskOutcome }> {
  const { context, state, emit, language, snapshot, dependencies } = turn;
  const { task, card, inputs, outbound, message, requestTaskId } = prepared;
  try {
    // Recorded before it is sent, so a crash leaves an auditable trace of what may have happened.
    await context.tasks?.dispatched({ task_id: requestTaskId, agent_id: card.id, inputs });
  } catch (error) {
    dependencies.logger.error({ traceId: context.traceId, task: task.task_id, err: error }, 'recording a sub-task failed; not sending it');
    emit(agentFailedEvent(card, language, { task_id: task.task_id, code: 'not_recorded' }));
    return { done: { task_id: task.task_id, agent_id: card.id, status: 'failed', reason: 'agent_failed', detail: 'the dispatch could not be recorded' } };
  }
  // The turn's time budget aborts the call as the turn's cancel does, but the turn goes on to answer.
  const deadline = context.budget?.deadline;
  const signal = deadline ? AbortSignal.any([context.signal, deadline]) : context.signal;
  // The agent's progress and its result's message are one text to the guard: a secret cut between them is seen whole.
  const text = createSubAgentText(turn.guard.text);
  const progressEvent = (content: string): NodeEvent => ({ stage: 'agent_stream', content, agent_id: card.id, is_thinking: true, state: { task_id: task.task_id } });
  const called = await dependencies.agentClient.call(
    card,
    {
      task_id: requestTaskId,
      message,
      inputs,
      user_id: state.user_id,
      thread_id: state.thread_id,
      trace_id: context.traceId,
      // Another agent's output may echo that agent's own secrets: never pass them on.
      upstream: outbound.maskDeep(
        redactSecretsDeep(
          Object.fromEntries(upstream.map((item) => [item.task_id, { agent: item.agent_id, output: item.output ?? {} }])),
          agentSecrets(snapshot, card.id),
        ),
      ),
    },
    {
      signal,
      requestId: `${context.traceId}:${requestTaskId}`,
      delegationDepth: context.delegationDepth ?? 1,
      onProgress: (content) => {
        // Over the turn's caps it is dropped before the guard spends anything on it (a flood is mostly that).
        if (context.admitProgress && !context.admitProgress(card.id, content)) return;
        for (const shown of text.progress(content)) emit(progressEvent(shown));
      },
    },
  );
  const cutByDeadline = !called.ok && called.code === 'aborted' && deadline?.aborted === true && !context.signal.aborted;
  const outcome: AgentOutcome = cutByDeadline && !called.ok ? { ...called, code: 'aborted', reason: 'the turn reached its time budget' } : called;
  const failureCode = outcome.ok ? undefined : cutByDeadline ? 'max_turn_ms' : outcome.code;
  dependencies.onAgentCall?.(card.id, outcome.ok ? outcome.reply.status : outcome.code, outcome.durationMs);
  // The turn's usage and its record (turn/turn-usage.ts, turn/turn-record.ts) count each remote call here.
  context.agentCalls?.push({ task_id: requestTaskId, agent_id: card.id, ok: outcome.ok, status: outcome.ok ? outcome.reply.status : outcome.code, ms: outcome.durationMs });
  context.tasks?.settled(
    requestTaskId,
    outcome.ok ? outcome.reply.status : outcome.code === 'aborted' ? 'cancelled' : 'failed',
    failureCode,
  );
  const ended = text.end(outcome.ok ? outcome.reply.message : undefined);
  for (const shown of ended.progress) emit(progressEvent(shown));
  return { outcome, ...(failureCode !== undefined ? { failureCode } : {}), message: ended.message };
}
