/**
 * Keeps the intent prompt the same size however many agents are registered:
 * above `limit` enabled agents only the `limit` cards most likely to matter
 * are shown (a miss here is a miss the model can never repair, so recall is
 * what counts; `switchboard eval` prints it as "pre-selection recall").
 *
 * Chosen in this order until `limit`: agents of tasks parked last turn (the
 * message may complete them), the agents of the previous turn (follow-ups like
 * "上海呢"), then the example ranker's candidates — cards named by a keyword,
 * then, taking turns between the whole query and each of its clauses, the
 * most probable cards under the registry's example model. The cards these
 * depend on are added after that (`depends_on` closure), so a plan can chain
 * them. Cards keep registry order.
 */
import type { AgentCard, RegistrySnapshot } from '../../registry/index.js';
import { createExampleRanker, type ExampleRanker } from './example-ranker.js';
import type { MemoryTurn } from '../types.js';
import type { RankText } from './card-ranker.js';
import type { SemanticScores } from '../../embeddings/index.js';

/** Options of the pre-selector. */
export interface CardPreselectOptions {
  /**
   * Most cards shown before pre-selection starts (and kept by it, before the closure). Default 40: the
   * smallest K whose recall reached 99.5 % on 150-agent synthetic registries (two seeds: recall@12
   * 98.1 %, @24 99.4 %, @32 99.5 %, @40 99.75 % / 99.6 %); see docs/decisions/0006-offline-routing-model.md.
   */
  limit?: number;
  /** Ranker giving the candidates (default: a new example ranker; share the recogniser's to train once). */
  ranker?: Pick<ExampleRanker, 'candidates'>;
}

/** Input of one selection. */
export interface CardPreselectInput {
  /** The message's reading: its normal form and clauses. */
  query: RankText;
  history: readonly MemoryTurn[];
  pendingAgents: readonly string[];
  snapshot: RegistrySnapshot;
  /** The query's scores from the optional embeddings endpoint: the closest cards in meaning take turns with the lexical ones. */
  semantic?: SemanticScores;
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
  /** True when `select` leaves cards of this snapshot out (only then do the query's embedding scores matter). */
  selects(snapshot: RegistrySnapshot): boolean;
}

/** Creates a pre-selector. Throws a `TypeError` when `limit` is not a positive integer. */
export function createCardPreselector(options: CardPreselectOptions = {}): CardPreselector {
  const limit = options.limit ?? 40;
  if (!Number.isInteger(limit) || limit < 1) throw new TypeError('card pre-selection: limit must be a positive integer');
  const ranker = options.ranker ?? createExampleRanker();

  return {
    selects: (snapshot) => snapshot.enabledAgents.length > limit,
    select({ query, history, pendingAgents, snapshot, semantic }) {
      const enabled = snapshot.enabledAgents;
      if (enabled.length <= limit) return { cards: [...enabled], preselected: false };
      const chosen = new Set<string>();
      const add = (agentId: string) => {
        if (chosen.size < limit && snapshot.byId.get(agentId)?.enabled) chosen.add(agentId);
      };
      pendingAgents.forEach(add);
      history.at(-1)?.agents.forEach(add);
      if (chosen.size < limit) for (const agentId of ranker.candidates(query, snapshot, limit, semantic)) add(agentId);
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
