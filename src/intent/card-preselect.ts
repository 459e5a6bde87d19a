/**
 * Keeps the intent prompt the same size however many agents are registered:
 * above `limit` enabled agents only the cards most likely to matter are shown.
 *
 * Chosen in this order until `limit`: agents of tasks parked last turn (the
 * message may complete them), cards ranked against the query by the offline
 * ranker with loose thresholds (recall matters more than precision here: the
 * model makes the final choice), then the agents of the previous turn (for
 * follow-ups like "上海呢"). The cards these depend on are added after that
 * (`depends_on` closure), so a plan can chain them. Cards keep registry order.
 */
import type { AgentCard, RegistrySnapshot } from '../registry/types.js';
import { createAgentRanker, type AgentRanker } from './agent-ranker.js';
import type { MemoryTurn } from './types.js';

/** Options of the pre-selector. */
export interface CardPreselectOptions {
  /** Most cards shown before pre-selection starts (and kept by it, before the closure). Default 12. */
  limit?: number;
  /** Ranker used for the query (default: the offline ranker with loose thresholds). */
  ranker?: AgentRanker;
}

/** Input of one selection. */
export interface CardPreselectInput {
  query: string;
  history: readonly MemoryTurn[];
  pendingAgents: readonly string[];
  snapshot: RegistrySnapshot;
}

/** Result of one selection. */
export interface CardSelection {
  cards: AgentCard[];
  /** True when some enabled cards were left out. */
  preselected: boolean;
}

/** Chooses the capability cards for the intent prompt. */
export interface CardPreselector {
  select(input: CardPreselectInput): CardSelection;
}

/** Creates a pre-selector. Throws a `TypeError` when `limit` is not a positive integer. */
export function createCardPreselector(options: CardPreselectOptions = {}): CardPreselector {
  const limit = options.limit ?? 12;
  if (!Number.isInteger(limit) || limit < 1) throw new TypeError('card pre-selection: limit must be a positive integer');
  const ranker = options.ranker ?? createAgentRanker({ minCoverage: 0.2, relativeCoverage: 0.3, coverageBesideKeyword: 0.3 });

  return {
    select({ query, history, pendingAgents, snapshot }) {
      const enabled = snapshot.enabledAgents;
      if (enabled.length <= limit) return { cards: [...enabled], preselected: false };
      const chosen = new Set<string>();
      const add = (agentId: string) => {
        if (chosen.size < limit && snapshot.byId.get(agentId)?.enabled) chosen.add(agentId);
      };
      pendingAgents.forEach(add);
      for (const intent of ranker.rank(query, snapshot).intents) add(intent.agentId);
      history.at(-1)?.agents.forEach(add);
      // depends_on closure, beyond the limit but bounded by it.
      const queue = [...chosen];
      while (queue.length > 0 && chosen.size < limit * 2) {
        const card = snapshot.byId.get(queue.shift()!);
        for (const upstream of card?.dependsOn ?? []) {
          if (chosen.has(upstream) || !snapshot.byId.get(upstream)?.enabled) continue;
          chosen.add(upstream);
          queue.push(upstream);
        }
      }
      return { cards: enabled.filter((card) => chosen.has(card.id)), preselected: true };
    },
  };
}
