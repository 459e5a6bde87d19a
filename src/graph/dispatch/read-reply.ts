/**
 * Dispatch step 3, the reply: a failed call of a read-only agent falls back to
 * a recent enough cached reply (`stale_if_error_s`), else `agent_failed`; a
 * reply is kept and shown only guarded (no secret or address of the registry
 * in its message or output); `input_required` asks for the agent's keys
 * (planning/key-request.ts); a sufficient reply without personal data is
 * remembered by the response cache.
 */
import { agentDoneText, staleReplyText } from '../../i18n/index.js';
import { keyRequest, type TaskOutcome } from '../../planning/index.js';
import { maskForSnapshot, scrubDeep } from '../../privacy/index.js';
import { agentFailedEvent } from '../agent-failed-event.js';
import { insufficiencyOf } from '../verify/rule-check.js';
import type { AgentCall } from './call-agent.js';
import type { DispatchTurn } from './dispatch-types.js';
import type { PreparedTask } from './prepare-task.js';

/** The task's outcome from what the call brought back (see the file header). */
export async function readReply(turn: DispatchTurn, prepared: PreparedTask, call: AgentCall): Promise<TaskOutcome> {
  const { emit, language, snapshot, context, dependencies } = turn;
  const { task, card, name, cacheRequest } = prepared;
  const { outcome, failureCode } = call;
  if (!outcome.ok && outcome.code !== 'aborted') {
    // Read-only agents with stale_if_error_s: a recent enough good answer beats none.
    const stale = await dependencies.responseCache?.lookupStale(cacheRequest);
    if (stale) {
      const lead = staleReplyText(language, name, stale.ageS);
      const staleMessage = stale.message?.trim() ? `${lead}${language === 'zh' ? '' : ' '}${stale.message.trim()}` : lead;
      dependencies.logger.info({ traceId: context.traceId, task: task.task_id, agent: card.id, code: outcome.code, ageS: Math.round(stale.ageS) }, 'served a stale cached reply after a failed call');
      emit({
        stage: 'agent_done',
        content: staleMessage,
        agent_id: card.id,
        is_thinking: true,
        state: { task_id: task.task_id, status: 'completed', output: stale.output ?? {}, cached: true, stale: true, age_s: Math.round(stale.ageS) },
      });
      return { task_id: task.task_id, agent_id: card.id, status: 'completed', message: staleMessage, output: stale.output, attempts: outcome.attempts, duration_ms: outcome.durationMs, cached: true, stale: true };
    }
  }
  if (!outcome.ok) {
    const code = failureCode ?? outcome.code;
    emit(agentFailedEvent(card, language, { task_id: task.task_id, code, reason: outcome.reason, attempts: outcome.attempts }));
    return { task_id: task.task_id, agent_id: card.id, status: 'failed', reason: code, detail: outcome.reason, attempts: outcome.attempts, duration_ms: outcome.durationMs };
  }
  // What the agent sent is kept and shown only guarded: no secret or address of the registry stays in its message or
  // output (another agent's token in a debug field), so the answer, the events and the checkpoint never hold one.
  const reply = { ...outcome.reply, message: call.message, ...(outcome.reply.output ? { output: scrubDeep(outcome.reply.output, turn.guard.data.scrub) } : {}) };
  const base = { task_id: task.task_id, agent_id: card.id, message: reply.message, output: reply.output, attempts: outcome.attempts, duration_ms: outcome.durationMs };
  if (reply.status === 'input_required') {
    const keys = reply.missing_keys ?? [];
    const info = keyRequest(card, keys, language, { widgets: snapshot.widgets });
    if (keys.length > 0) turn.extraInfo.push(info);
    emit({
      stage: 'agent_done',
      content: reply.message?.trim() || agentDoneText(language, name),
      agent_id: card.id,
      is_thinking: true,
      semantic_info: keys.length > 0 ? [info] : undefined,
      state: { task_id: task.task_id, status: 'input_required' },
    });
    return { ...base, status: 'input_required', missing_keys: keys };
  }
  emit({
    stage: 'agent_done',
    content: reply.message?.trim() || agentDoneText(language, name),
    agent_id: card.id,
    is_thinking: true,
    state: { task_id: task.task_id, status: 'completed', output: reply.output ?? {} },
  });
  // A reply that answers nothing is not kept: a later ask should reach the agent again. Nor is one carrying
  // personal data (docs/api.md#personal-data): a shared cache store (Redis) is storage too, and a masked copy would be a wrong answer.
  const kept = { output: reply.output, message: reply.message };
  if (insufficiencyOf(reply) === null && JSON.stringify(maskForSnapshot(snapshot).maskDeep(kept)) === JSON.stringify(kept)) {
    await dependencies.responseCache?.remember(cacheRequest, reply);
  }
  return { ...base, status: 'completed' };
}
