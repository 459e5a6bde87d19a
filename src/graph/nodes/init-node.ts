/**
 * build_initial_state: resets every per-turn field so nothing of the previous
 * turn leaks into this one; only `memory` is carried over (migrated if old).
 */
import { emptyMemory, MEMORY_SCHEMA_VERSION, type SupervisorState, type SupervisorUpdate } from '../state.js';

export function createInitNode() {
  return async (state: SupervisorState): Promise<SupervisorUpdate> => {
    const memory = state.memory?.schema_version === MEMORY_SCHEMA_VERSION ? state.memory : { ...emptyMemory(), history: state.memory?.history ?? [] };
    return {
      rewritten_query: state.query,
      reading: null,
      intent: null,
      task_plan: null,
      invalid_keys: {},
      semantic_info: [],
      task_results: {},
      execution_path: ['init'],
      final_answer: '',
      verification: null,
      confirmation: [],
      notices: [],
      confirm_turn: false,
      carried_upstream: {},
      clarified: null,
      expired_agents: [],
      escalation: null,
      answer_cache: null,
      profile: [],
      profile_filled: [],
      memory,
    };
  };
}
