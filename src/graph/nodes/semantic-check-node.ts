/**
 * Checks each sub-task's required semantic keys before anything is sent
 * (see src/planning/semantic-check.ts for why), then emits plan_done with the
 * plan and the `semantic_info` of parked tasks.
 */
import type { RegistrySnapshot } from '../../registry/index.js';
import { eventWriter, turnContext, type NodeConfig } from '../context.js';
import { type Language, planDescriptionText } from '../../i18n/index.js';
import { checkPlanSemantics, type SubTask, type TaskPlan } from '../../planning/index.js';
import { serviceNames } from '../service-name.js';
import { holdSideEffects } from '../control/confirmation.js';
import { sessionEvidence, sourceTaskInputs } from '../value-source.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';

/** A user-facing sentence describing the plan's order of work. */
export function describePlan(plan: TaskPlan, snapshot: RegistrySnapshot, language: Language): string {
  const nameOf = serviceNames(snapshot, language);
  const byTaskId = new Map(plan.sub_tasks.map((task) => [task.task_id, task]));
  const runnable = plan.sub_tasks.filter((task) => task.status === 'pending');
  const services = (status: SubTask['status']) => plan.sub_tasks.filter((task) => task.status === status).map((task) => nameOf(task.assigned_agent));
  return planDescriptionText(language, {
    first: runnable.filter((task) => task.dependencies.length === 0).map((task) => nameOf(task.assigned_agent)),
    then: runnable
      .filter((task) => task.dependencies.length > 0)
      .map((task) => ({ service: nameOf(task.assigned_agent), after: task.dependencies.map((id) => nameOf(byTaskId.get(id)?.assigned_agent ?? '')) })),
    needInformation: services('parked'),
    awaitConfirmation: services('awaiting_confirmation'),
  });
}

export function createSemanticCheckNode() {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const emit = eventWriter(config);
    if (!state.task_plan) return { execution_path: [...state.execution_path, 'semantic_check'] };
    // Every value must have a source in the session before any key check (value-source.ts); one it cannot place is asked for.
    const evidence = sessionEvidence({
      // The turn's reading of the message: its values are looked up there, not read again.
      message: context.message,
      history: state.memory.history,
      foldedTurns: state.memory.summary?.turns ?? 0,
      pending: state.memory.pending,
      knownValues: state.memory.known_values,
      knownSources: state.memory.known_sources,
      profile: state.profile_filled,
      now: context.now,
    });
    // The number value-source.ts gives this turn (`sessionEvidence`): the turn record keeps it.
    context.sessionTurn = (state.memory.summary?.turns ?? 0) + state.memory.history.length + 1;
    const sourced: TaskPlan = {
      ...state.task_plan,
      sub_tasks: state.task_plan.sub_tasks.map((task) => {
        const card = context.snapshot.byId.get(task.assigned_agent);
        return card ? sourceTaskInputs(task, card, evidence).task : task;
      }),
    };
    const checked = checkPlanSemantics(sourced, state.invalid_keys, context.snapshot, context.language);
    const { semanticInfo, heldBack } = checked;
    // Side-effect tasks with every key wait for the user's yes (control/confirmation.ts).
    const { plan, confirmation } = holdSideEffects(checked.plan, context.snapshot, context.language);
    for (const request of confirmation) heldBack[request.task_id] = 'awaits the user\'s confirmation';
    const content = plan.user_friendly_message || describePlan(plan, context.snapshot, context.language);
    const finalPlan = { ...plan, user_friendly_message: content };
    emit({
      stage: 'plan_done',
      content,
      agent_id: 'supervisor',
      is_thinking: true,
      semantic_info: semanticInfo,
      ...(confirmation.length > 0 ? { confirmation } : {}),
      // A part of the message no agent took is asked about beside the plan (intent `askAbout`).
      ...(state.intent?.askAbout ? { clarification: state.intent.askAbout.clarification } : {}),
      state: { task_plan: finalPlan, held_back: heldBack },
    });
    const preDispatch = Object.fromEntries(
      plan.sub_tasks
        .filter((task) => task.status === 'failed')
        .map((task) => [task.task_id, { task_id: task.task_id, agent_id: task.assigned_agent, status: 'failed' as const, reason: 'agent_failed', detail: heldBack[task.task_id] }]),
    );
    return {
      task_plan: finalPlan,
      confirmation,
      semantic_info: semanticInfo,
      invalid_keys: checked.invalidKeys,
      task_results: preDispatch,
      execution_path: [...state.execution_path, 'semantic_check'],
    };
  };
}
