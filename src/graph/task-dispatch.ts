/**
 * Sends one sub-task to its agent (or takes its reply from the response
 * cache) and streams agent_start / agent_stream / agent_done / agent_failed.
 * Used by the execute node for the plan and by the verify node to re-send a
 * sub-task with a revised message.
 */
import { type AgentCard, cardName, keyDescription, type RegistrySnapshot } from '../registry/index.js';
import { keyOptions } from './planning/semantic-check.js';
import type { AgentClient, AgentOutcome } from '../agents/index.js';
import { NoSuchAgentError } from '../errors.js';
import { agentDoneText, agentStartText, staleReplyText } from '../i18n/index.js';
import type { Logger } from '../logger.js';
import { agentFailedEvent, vanishedAgentFailedEvent } from './agent-failed-event.js';
import { ownerOf, type NodeEvent, type TurnContext } from './context.js';
import type { SubTask, TaskOutcome } from '../planning/index.js';
import type { SemanticInfo } from '../events/index.js';
import type { ResponseCache } from './caches/response-cache.js';
import type { SupervisorState } from './state.js';
import { insufficiencyOf } from './verify/rule-check.js';
import { agentSecrets, createContentGuard, createSecretGuard, createSubAgentText, maskForSnapshot, maskUndeclared, redactSecretsDeep, scrubDeep } from '../privacy/index.js';
import type { TextScrubber } from '../text/index.js';
import { sendableInputs, type SourcedInputs } from './value-source.js';

export interface DispatchDependencies {
  agentClient: AgentClient;
  logger: Logger;
  /** Called after each sub-agent call (metrics). */
  onAgentCall?: (agentId: string, status: string, durationMs: number) => void;
  /** Replies of agents with `cache_ttl_s`; none = every sub-task is sent. */
  responseCache?: ResponseCache;
}

/** What one dispatch runs in: the turn, its event writer, and where key requests of agents are collected. */
export interface DispatchScope {
  state: Pick<SupervisorState, 'user_id' | 'thread_id' | 'rewritten_query'>;
  context: TurnContext;
  emit: (event: NodeEvent) => void;
  /** `semantic_info` of agents that answered input_required with keys. */
  extraInfo: SemanticInfo[];
}

export interface DispatchOptions {
  /** Sent instead of the task's description (a revised message from the verify step). */
  message?: string;
  /** Always call the agent, even when a cached reply exists. */
  bypassCache?: boolean;
  /**
   * The `task_id` sent to the agent when it differs from the plan's: a re-send
   * with a revised message is a new request, so an agent that deduplicates by
   * task id must not answer it with the first reply.
   */
  requestTaskId?: string;
}

/** Creates the dispatcher: `(scope) => (task, upstream, options) => outcome`. */
export function createTaskDispatch(dependencies: DispatchDependencies) {
  // The guards of a snapshot, built on first use and dropped with it.
  const guards = new WeakMap<RegistrySnapshot, { text: TextScrubber; data: TextScrubber }>();
  const guardsOf = (snapshot: RegistrySnapshot) => {
    let entry = guards.get(snapshot);
    if (!entry) {
      entry = { text: createContentGuard(snapshot), data: createSecretGuard(snapshot) };
      guards.set(snapshot, entry);
    }
    return entry;
  };
  return ({ state, context, emit, extraInfo }: DispatchScope) => {
    const { snapshot, language } = context;
    const guard = guardsOf(snapshot);
    /** The request for `keys` of `card`, with their descriptions, widgets and options in the turn's language. */
    const missingInfo = (card: AgentCard, keys: string[]): SemanticInfo => {
      const specs = keys.map((key) => card.requiredKeys.find((spec) => spec.key === key));
      return {
        type: 'miss',
        sub_agent_id: card.id,
        keys,
        key_descriptions: keys.map((key, index) => (specs[index] ? keyDescription(specs[index]!, language) : key)),
        fe_widgets_suggestion: keys.map((key, index) => specs[index]?.widget ?? snapshot.widgets[key] ?? ''),
        key_options: specs.map((spec) => keyOptions(spec, language)),
      };
    };
    /** A task holding a value without a source is not sent: its keys are asked for as missing. */
    const refuseUnsourced = (task: SubTask, card: AgentCard, keys: string[]): TaskOutcome => {
      dependencies.logger.warn({ traceId: context.traceId, task: task.task_id, agent: card.id, keys }, 'refused input values without a source; asking for them');
      extraInfo.push(missingInfo(card, keys));
      return { task_id: task.task_id, agent_id: card.id, status: 'input_required', missing_keys: keys, reason: 'unsourced_value' };
    };
    return async (task: SubTask, upstream: TaskOutcome[], options: DispatchOptions = {}): Promise<TaskOutcome> => {
      const card = snapshot.byId.get(task.assigned_agent);
      if (!card) {
        // Logs name what was available (never the user: agent ids are internal).
        const error = new NoSuchAgentError(task.assigned_agent, snapshot.enabledAgents.map((entry) => entry.id));
        dependencies.logger.warn(
          { traceId: context.traceId, task: task.task_id, agent: error.agentId, availableAgents: error.availableAgents, code: error.code },
          error.message,
        );
        emit(vanishedAgentFailedEvent(task.assigned_agent, language, task.task_id));
        return { task_id: task.task_id, agent_id: task.assigned_agent, status: 'failed', reason: 'agent_unavailable', detail: 'the agent is no longer in the registry' };
      }
      const name = cardName(card, language);
      // The one place a value without a source is refused, whoever produced it: the key is asked for instead.
      const sendable = sendableInputs(task);
      if ('unsourced' in sendable) return refuseUnsourced(task, card, sendable.unsourced);
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
        return { task_id: task.task_id, agent_id: card.id, status: 'completed', message: cached.message, output: cached.output, attempts: 0, duration_ms: 0, cached: true };
      }
      try {
        // Recorded before it is sent, so a crash leaves an auditable trace of what may have happened.
        await context.tasks?.dispatched({ task_id: requestTaskId, agent_id: card.id, inputs });
      } catch (error) {
        dependencies.logger.error({ traceId: context.traceId, task: task.task_id, err: error }, 'recording a sub-task failed; not sending it');
        emit(agentFailedEvent(card, language, { task_id: task.task_id, code: 'not_recorded' }));
        return { task_id: task.task_id, agent_id: card.id, status: 'failed', reason: 'agent_failed', detail: 'the dispatch could not be recorded' };
      }
      // The turn's time budget aborts the call as the turn's cancel does, but the turn goes on to answer.
      const deadline = context.budget?.deadline;
      const signal = deadline ? AbortSignal.any([context.signal, deadline]) : context.signal;
      // The agent's progress and its result's message are one text to the guard: a secret cut between them is seen whole.
      const text = createSubAgentText(guard.text);
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
      context.tasks?.settled(
        requestTaskId,
        outcome.ok ? outcome.reply.status : outcome.code === 'aborted' ? 'cancelled' : 'failed',
        failureCode,
      );
      const ended = text.end(outcome.ok ? outcome.reply.message : undefined);
      for (const shown of ended.progress) emit(progressEvent(shown));
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
      const reply = { ...outcome.reply, message: ended.message, ...(outcome.reply.output ? { output: scrubDeep(outcome.reply.output, guard.data.scrub) } : {}) };
      const base = { task_id: task.task_id, agent_id: card.id, message: reply.message, output: reply.output, attempts: outcome.attempts, duration_ms: outcome.durationMs };
      if (reply.status === 'input_required') {
        const keys = reply.missing_keys ?? [];
        const info = missingInfo(card, keys);
        if (keys.length > 0) extraInfo.push(info);
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
    };
  };
}

/** The task's input values for the keys `card` declares (its required keys and its input schema's properties). */
function declaredValues(card: AgentCard, inputs: Readonly<Record<string, unknown>>): unknown[] {
  const properties = card.inputSchema?.properties;
  const keys = new Set([...card.requiredKeys.map((spec) => spec.key), ...(properties !== null && typeof properties === 'object' ? Object.keys(properties) : [])]);
  return Object.entries(inputs)
    .filter(([key]) => keys.has(key))
    .map(([, value]) => value);
}
