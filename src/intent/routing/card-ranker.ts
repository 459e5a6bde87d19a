/**
 * What a card ranker is: it ranks the enabled cards of a registry snapshot
 * against a query, with no model, and says why each card was chosen. The
 * example ranker (`example-ranker.ts`) is the implementation.
 */
import type { RegistrySnapshot } from '../../registry/index.js';
import type { RankedIntent } from '../types.js';
import type { SemanticScores } from '../../embeddings/index.js';
import type { Clause } from '../../understanding/index.js';

/** A ranked card with the evidence that chose it. */
export interface AgentMatch extends RankedIntent {
  /** Keywords of the card found in the query. */
  keywords: string[];
  /** How close the best clause is to the card, 0..1. */
  coverage: number;
  /** The clause (or whole query) that gave the best score. */
  clause: string;
  /** Where that evidence starts in the normalised query (for stable ordering). */
  position: number;
  /** A slot value only this card asks for, when that (not a keyword) named it. */
  value?: string;
}

/** What `rank` returns: chosen cards best first and an overall confidence. */
export interface RankResult {
  intents: AgentMatch[];
  confidence: 'high' | 'medium' | 'low';
  reason: string;
}

/** The cards a request most likely means, for a clarification (`shortlist.ts`). */
export interface RankShortlist {
  /** Best first, each with its share of the models' probability (0..1). */
  candidates: { agentId: string; share: number }[];
  /** Share of the text the first candidate's texts hold, 0..1. */
  covered: number;
  /** Cosine of the query to the first candidate's texts taken together (their centroid), 0..1. */
  centroid: number;
  /** Words or multi-character Chinese terms the text shares with the first candidate's texts. */
  shared: number;
  /**
   * How much the example model and the n-gram model back the card they back most: the mean of its share under
   * each, 0..1. `covered`, `centroid` and `shared` are read on that card (usually the first candidate).
   */
  backing: number;
  /**
   * Whether the registry's cards stand apart: the n-gram model, trained without some examples, ranks nine in
   * ten of them first (`ranker-model.ts`). There a similarity route is trusted; on a fine-grained registry
   * (many close neighbours) it is a guess among them.
   */
  separable: boolean;
}

/**
 * What a ranker ranks: the message's reading (`understanding/`), its normal form and its clauses, so
 * the ranker neither normalises nor splits the user's words again. A `QueryReading` or an
 * `IntentInput` is one.
 */
export interface RankText {
  /** The normal form (NFKC, trimmed) of the words to rank. */
  readonly normalizedQuery: string;
  /** Its clauses, with where each starts in it. */
  readonly clauses: readonly Clause[];
}

/** Ranks the enabled cards of a snapshot against a query. */
export interface AgentRanker {
  /** `semantic`: the query's scores from the optional embeddings endpoint, fused with the lexical evidence. */
  rank(query: RankText, snapshot: RegistrySnapshot, semantic?: SemanticScores): RankResult;
  /** The `limit` cards the whole query most likely means, whether or not `rank` routes it (optional). */
  shortlist?(query: RankText, snapshot: RegistrySnapshot, limit: number): RankShortlist;
}
