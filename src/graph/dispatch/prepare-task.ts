/**
 * Dispatch step 1, before any call: the task's agent (gone from the registry:
 * failed), its input values (one without a source: the key is asked for
 * instead, see planning/key-request.ts), `agent_start`, the outbound message
 * with personal values masked for what the agent does not declare, and the
 * response cache (a hit answers without a call).
 */
import { NoSuchAgentError } from '../../errors.js';
import { agentDoneText, agentStartText } from '../../i18n/index.js';
import { keyRequest, type SubTask, type TaskOutcome } from '../../planning/index.js';
import { maskForSnapshot, maskUndeclared } from '../../privacy/index.js';
import { type AgentCard, cardName } from '../../registry/index.js';
import { vanishedAgentFailedEvent } from '../agent-failed-event.js';
import type { ReplyCacheRequest } from '../caches/response-cache.js';
import { ownerOf } from '../context.js';
import { sendableInputs, type SourcedInputs } from '../value-source.js';
import type { DispatchOptions, DispatchTurn } from './dispatch-types.js';

/** A task ready to be sent: its agent, what goes out, and its response-cache request. */
export interface PreparedTask {
  task: SubTask;
  card: AgentCard;
  /** The agent's name in the turn's language. */
  name: string;
  inputs: SourcedInputs;
  /** Masks personal values the agent does not declare (its message and upstream outputs). */
  outbound: ReturnType<typeof maskUndeclared>;
  message: string;
  requestTaskId: string;
  cacheRequest: ReplyCacheRequest;
}

/** The prepared task, or the task's outcome when it ends before any call. */
export async function prepareTask(turn: DispatchTurn, task: SubTask, options: DispatchOptions): Promise<PreparedTask | { done: TaskOutcome }> {
  const { snapshot, language, context, state, emit, dependencies } = turn;
  const card = snapshot.byId.get(task.assigned_agent);
  if (!card) {
    // Logs name what was available (never the user: agent ids are internal).
    const error = new NoSuchAgentError(task.assigned_agent, snapshot.enabledAgents.map((entry) => entry.id));
    dependencies.logger.warn(
      { traceId: context.traceId, task: task.task_id, agent: error.agentId, availableAgents: error.availableAgents, code: error.code },
      error.message,
    );
    emit(vanishedAgentFailedEvent(task.assigned_agent, language, task.task_id));
    return { done: { task_id: task.task_id, agent_id: task.assigned_agent, status: 'failed', reason: 'agent_unavailable', detail: 'the agent is no longer in the registry' } };
  }
  const name = cardName(card, language);
  // The one place a value without a source is refused, whoever produced it: the key is asked for instead.
  const sendable = sendableInputs(task);
  if ('unsourced' in sendable) {
    const keys = sendable.unsourced;
    dependencies.logger.warn({ traceId: context.traceId, task: task.task_id, agent: card.id, keys }, 'refused input values without a source; asking for them');
    turn.extraInfo.push(keyRequest(card, keys, language, { widgets: snapshot.widgets }));
    return { done: { task_id: task.task_id, agent_id: card.id, status: 'input_required', missing_keys: keys, reason: 'unsourced_value' } };
  }
  const inputs: SourcedInputs = sendable.inputs;
  emit({ stage: 'agent_start', content: agentStartText(language, name), agent_id: card.id, is_thinking: true, state: { task_id: task.task_id } });
  // Personal values reach an agent only as the values of keys it declares (docs/api.md#personal-data): the rest of its message and upstream is masked.
  const outbound = maskUndeclared(maskForSnapshot(snapshot), declaredValues(card, inputs));
  // The sub-task's own text (its clause of a multi-intent query), else the whole rewritten query.
  const message = outbound.mask(options.message ?? (task.description.trim() || state.rewritten_query));
  const requestTaskId = options.requestTaskId ?? task.task_id;
  // A user-specific reply is cached per owner (the user within its tenant), never across tenants.
  const cacheRequest = { card, registryVersion: snapshot.version, userId: ownerOf(context, state.user_id), inputs, message, today: context.now };
  const cached = options.bypassCache ? undefined : await dependencies.responseCache?.lookup(cacheRequest);
  if (cached) {
    emit({
      stage: 'agent_done',
      content: cached.message?.trim() || agentDoneText(language, name),
      agent_id: card.id,
      is_thinking: true,
      state: { task_id: task.task_id, status: 'completed', output: cached.output ?? {}, cached: true },
    });
    return { done: { task_id: task.task_id, agent_id: card.id, status: 'completed', message: cached.message, output: cached.output, attempts: 0, duration_ms: 0, cached: true } };
  }
  return { task, card, name, inputs, outbound, message, requestTaskId, cacheRequest };
}

/** The task's input values for the keys `card` declares (its required keys and its input schema's properties). */
function declaredValues(card: AgentCard, inputs: Readonly<Record<string, unknown>>): unknown[] {
  const properties = card.inputSchema?.properties;
  const keys = new Set([...card.requiredKeys.map((spec) => spec.key), ...(properties !== null && typeof properties === 'object' ? Object.keys(properties) : [])]);
  return Object.entries(inputs)
    .filter(([key]) => keys.has(key))
    .map(([, value]) => value);
}
