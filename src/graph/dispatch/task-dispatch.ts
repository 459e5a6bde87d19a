/**
 * Sends one sub-task to its agent (or takes its reply from the response
 * cache) and streams agent_start / agent_stream / agent_done / agent_failed.
 * Used by the execute node for the plan and by the verify node to re-send a
 * sub-task with a revised message.
 *
 * Three steps, a file each: prepare (agent, sourced inputs, masking, the
 * response cache: prepare-task.ts), call (record, send, progress:
 * call-agent.ts), read the reply (stale fallback, failure, key request, cache
 * write: read-reply.ts). Either of the first two may end the task early.
 */
import type { SubTask, TaskOutcome } from '../../planning/index.js';
import { createContentGuard, createSecretGuard } from '../../privacy/index.js';
import type { RegistrySnapshot } from '../../registry/index.js';
import type { Language } from '../../i18n/index.js';
import type { TextScrubber } from '../../text/index.js';
import { callAgent } from './call-agent.js';
import type { DispatchDependencies, DispatchOptions, DispatchScope, DispatchTurn } from './dispatch-types.js';
import { prepareTask } from './prepare-task.js';
import { readReply } from './read-reply.js';

export type { DispatchDependencies, DispatchOptions, DispatchScope } from './dispatch-types.js';

/** Creates the dispatcher: `(scope) => (task, upstream, options) => outcome`. */
export function createTaskDispatch(dependencies: DispatchDependencies) {
  // The guards of a snapshot per turn language (an agent id shows as the agent's name in it), built on first use
  // and dropped with the snapshot.
  const guards = new WeakMap<RegistrySnapshot, Map<Language, { text: TextScrubber; data: TextScrubber }>>();
  const guardsOf = (snapshot: RegistrySnapshot, language: Language) => {
    let byLanguage = guards.get(snapshot);
    if (!byLanguage) {
      byLanguage = new Map();
      guards.set(snapshot, byLanguage);
    }
    let entry = byLanguage.get(language);
    if (!entry) {
      entry = { text: createContentGuard(snapshot, { namesIn: language }), data: createSecretGuard(snapshot) };
      byLanguage.set(language, entry);
    }
    return entry;
  };
  return (scope: DispatchScope) => {
    const { snapshot, language } = scope.context;
    const turn: DispatchTurn = { ...scope, dependencies, snapshot, language, guard: guardsOf(snapshot, language) };
    return async (task: SubTask, upstream: TaskOutcome[], options: DispatchOptions = {}): Promise<TaskOutcome> => {
      const prepared = await prepareTask(turn, task, options);
      if ('done' in prepared) return prepared.done;
      const call = await callAgent(turn, prepared, upstream);
      if ('done' in call) return call.done;
      return readReply(turn, prepared, call);
    };
  };
}
