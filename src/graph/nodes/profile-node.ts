/**
 * The long-term profile in the turn (see memory/profile-facts.ts): `load_profile`
 * reads the user's facts once at the start of the turn, keeping only keys the
 * registry marks `remember` (prompts show them);
 * `fill_from_profile`, after planning, fills keys the user did not give from
 * facts seen repeatedly, so the semantic check does not ask for them. A
 * profile that cannot be read is treated as empty: the turn never fails on it.
 */
import type { Logger } from '../../logger.js';
import type { ProfileStore } from '../../store/index.js';
import { ownerOf, turnContext, type NodeConfig } from '../context.js';
import { fillFromProfile, rememberedFacts } from '../memory/profile-facts.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';

export function createLoadProfileNode(dependencies: { profiles?: ProfileStore; logger: Logger }) {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    if (!dependencies.profiles || !state.user_id) return { profile: [] };
    const context = turnContext(config);
    const stored = await dependencies.profiles.get(ownerOf(context, state.user_id)).catch((error: unknown) => {
      dependencies.logger.warn({ err: error }, 'profile read failed; continuing without it');
      return [];
    });
    return { profile: rememberedFacts(stored, context.snapshot.byId.values()) };
  };
}

export function createFillFromProfileNode() {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const plan = state.task_plan;
    if (!plan || state.profile.length === 0) return {};
    const { tasks, filled } = fillFromProfile(plan.sub_tasks, state.profile, (id) => context.snapshot.byId.get(id), state.invalid_keys, context.now, context.language);
    if (filled.length === 0) return {};
    return { task_plan: { ...plan, sub_tasks: tasks }, profile_filled: filled };
  };
}
