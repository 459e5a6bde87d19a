/**
 * The offline planner: one sub-task per matched agent, dependencies from the
 * cards' `depends_on` when both agents are in the plan, inputs from the
 * semantic keys extracted from each agent's own clause of the (rewritten)
 * query, completed by slot memory (values known from earlier turns and the
 * inputs of parked tasks). The sub-task's message is that clause.
 */
import { orderByMention } from '../text/index.js';
import type { AgentCard } from '../registry/index.js';
import { assemblePlan, buildSubTasks } from './sub-tasks.js';
import type { Planner, PlanRequest, PlanResult } from './types.js';

/** Creates the planner used when no LLM is configured (and as the LLM's fallback). */
export function createOfflinePlanner(): Planner {
  return {
    async plan(request: PlanRequest): Promise<PlanResult> {
      // Tasks follow the order the user mentioned them (then rank), so results read in that order.
      const cards = orderByMention(request.intents, request.query)
        .map((intent) => request.snapshot.byId.get(intent.agentId))
        .filter((card): card is AgentCard => card !== undefined && card.enabled);
      const unique = [...new Map(cards.map((card) => [card.id, card])).values()];
      const { tasks, invalidKeys } = buildSubTasks(unique, request);
      const names = unique.map((card) => card.name).join('、');
      return {
        plan: assemblePlan(request.planId, tasks, `matched capabilities: ${names}`, ''),
        invalidKeys,
      };
    },
  };
}
