/**
 * Checks each sub-task's required semantic keys before anything is sent
 * (see planning/semantic-check.ts for why), then emits plan_done with the
 * plan and the `semantic_info` of parked tasks.
 */
import { cardName } from '../../registry/localized-text.js';
import type { RegistrySnapshot } from '../../registry/types.js';
import { eventWriter, turnContext, type NodeConfig } from '../context.js';
import type { Language } from '../../i18n/index.js';
import type { TaskPlan } from '../plan-types.js';
import { holdSideEffects } from '../control/confirmation.js';
import { checkPlanSemantics } from '../planning/semantic-check.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';

/** A user-facing sentence describing the plan's order of work. */
export function describePlan(plan: TaskPlan, snapshot: RegistrySnapshot, language: Language): string {
  const zh = language === 'zh';
  const nameOf = (agentId: string) => {
    const card = snapshot.byId.get(agentId);
    return card ? cardName(card, language) : zh ? '相关服务' : 'a service';
  };
  const runnable = plan.sub_tasks.filter((task) => task.status === 'pending');
  const parked = plan.sub_tasks.filter((task) => task.status === 'parked');
  const byTaskId = new Map(plan.sub_tasks.map((task) => [task.task_id, task]));
  const parts: string[] = [];
  const roots = runnable.filter((task) => task.dependencies.length === 0).map((task) => nameOf(task.assigned_agent));
  if (roots.length > 1) parts.push(zh ? `同时为您处理${roots.join('、')}` : `handle ${roots.join(', ')} in parallel`);
  else if (roots.length === 1) parts.push(zh ? `先为您处理${roots[0]}` : `first handle ${roots[0]}`);
  for (const task of runnable.filter((candidate) => candidate.dependencies.length > 0)) {
    const after = task.dependencies.map((id) => nameOf(byTaskId.get(id)?.assigned_agent ?? '')).join(zh ? '、' : ', ');
    parts.push(zh ? `${after}完成后再处理${nameOf(task.assigned_agent)}` : `then ${nameOf(task.assigned_agent)} once ${after} is done`);
  }
  let text = parts.length > 0 ? (zh ? `已为您制定执行方案：${parts.join('，')}。` : `Plan ready: ${parts.join('; ')}.`) : '';
  if (parked.length > 0) {
    const names = [...new Set(parked.map((task) => nameOf(task.assigned_agent)))].join(zh ? '、' : ', ');
    text += zh ? `${names}还需要您补充一些信息。` : ` ${names} needs a bit more information from you.`;
  }
  const awaiting = plan.sub_tasks.filter((task) => task.status === 'awaiting_confirmation');
  if (awaiting.length > 0) {
    const names = [...new Set(awaiting.map((task) => nameOf(task.assigned_agent)))].join(zh ? '、' : ', ');
    text += zh ? `${names}需要您确认后才会执行。` : ` ${names} will run only after you confirm.`;
  }
  return text.trim();
}

export function createSemanticCheckNode() {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const emit = eventWriter(config);
    if (!state.task_plan) return { execution_path: [...state.execution_path, 'semantic_check'] };
    const checked = checkPlanSemantics(state.task_plan, state.invalid_keys, context.snapshot);
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
      task_results: preDispatch,
      execution_path: [...state.execution_path, 'semantic_check'],
    };
  };
}
