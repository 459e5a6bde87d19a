/**
 * Task planning: turns the recognised intents into a `task_plan` (one
 * sub-task per agent, dependencies, inputs). Emits plan_start; plan_done
 * follows the semantic check so it can say what is still missing.
 */
import { randomUUID } from 'node:crypto';
import { eventWriter, turnContext, type NodeConfig } from '../context.js';
import { planStartText } from '../../i18n/index.js';
import type { Planner } from '../../planning/index.js';
import { formatLocalDate } from '../../text/index.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';

/** `plan_YYYYMMDD_<8 hex>`: sortable by day, unique. */
export function newPlanId(now: Date): string {
  const day = formatLocalDate(now).replaceAll('-', '');
  return `plan_${day}_${randomUUID().slice(0, 8)}`;
}

export function createPlanNode(dependencies: { planner: Planner }) {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const emit = eventWriter(config);
    emit({ stage: 'plan_start', content: planStartText(context.language), agent_id: 'supervisor', is_thinking: true });
    const { reading, clarified } = state;
    const { plan, invalidKeys } = await dependencies.planner.plan({
      query: state.rewritten_query,
      // A correction's yes/no word ("好的，不过…") is no part of the request; a choice's request is the message it chose for.
      turnQuery: clarified ? clarified.query : reading?.act === 'correction' ? reading.normalizedQuery : state.query,
      // The reading is of those words, unless the message a choice was about reads as a correction (its words are whole).
      ...(reading && !(clarified && reading.act === 'correction') ? { reading, ...(state.intent?.asTyped ? { queryIsTyped: true } : {}) } : {}),
      intents: state.intent?.intents ?? [],
      ...(state.intent?.draftPlan ? { draft: state.intent.draftPlan } : {}),
      snapshot: context.snapshot,
      memory: state.memory,
      now: context.now,
      planId: newPlanId(context.now),
      signal: context.signal,
      usage: context.usage,
    });
    return { task_plan: plan, invalid_keys: invalidKeys, execution_path: [...state.execution_path, 'plan'] };
  };
}
