/**
 * Word meaning for routing, from the optional embeddings endpoint: every
 * enabled card's examples (and its name with its description) are embedded
 * when a registry snapshot is prepared — at load and at each reload, where the
 * content-hash cache of the client makes only changed texts cost a call —
 * and each query is embedded once per turn. A card's semantic score is the
 * cosine of the query to the card's closest text.
 *
 * Calibrated per registry, like the lexical gate, on the registry's own
 * examples left out one at a time: `threshold` is what the lower quarter of
 * examples reach to the rest of their own card, and at least what nine in ten
 * reach to the closest card they are not meant for; `margin` is what the lower
 * quarter keep over that card (at least 0.02). The ranker routes on meaning
 * only above both. `paraphrase` is what two questions need to be the same
 * question in other words (the answer cache): closer than nine in ten pairs of
 * examples of one card are (two requests to one agent are not one question),
 * and at least `threshold`.
 *
 * Nothing here can fail a turn: while a snapshot's cards are not embedded yet,
 * or when the endpoint fails or is slower than `queryTimeoutMs`, `scores`
 * resolves `undefined` and routing is the lexical recogniser's alone.
 */
import type { RegistrySnapshot } from '../registry/index.js';
import { cosine, type EmbeddingsClient } from './embeddings-client.js';

/** What the ranker reads: per card (enabled-card order), the query's cosine to the card's closest text. */
export interface SemanticScores {
  similarity: Float64Array;
  /** Cosine a route on meaning alone needs (calibrated). */
  threshold: number;
  /** Lead over the second card that route needs (calibrated). */
  margin: number;
}

/** One query's reading in meaning: its vector (kept in memory only) and what the card-level users read. */
export interface QueryMeaning {
  /** Unit vector of the query. */
  vector: Float32Array;
  scores: SemanticScores;
  /**
   * Cosine two questions need to count as the same question asked in other words (the answer cache's
   * near hit; calibrated, see `calibrate`).
   */
  paraphrase: number;
}

/** The per-snapshot semantic model. */
export interface SemanticIndex {
  /** Starts embedding the snapshot's cards (idempotent); resolves when done (false when the endpoint failed). */
  prepare(snapshot: RegistrySnapshot): Promise<boolean>;
  /** The query's vector and scores, or `undefined` (not ready, endpoint failed or too slow). One endpoint call at most. */
  read(query: string, snapshot: RegistrySnapshot, signal?: AbortSignal): Promise<QueryMeaning | undefined>;
  /** `read(…)`'s scores alone. */
  scores(query: string, snapshot: RegistrySnapshot, signal?: AbortSignal): Promise<SemanticScores | undefined>;
}

/** Settings. */
export interface SemanticIndexOptions {
  client: EmbeddingsClient;
  /** Longest a turn waits for its query's vector. Default 1500 ms. */
  queryTimeoutMs?: number;
  /** Quantile of the left-out examples' figures used as threshold and margin. Default 0.25. */
  quantile?: number;
  /**
   * Told when a query is read while the snapshot's cards have no vectors (still being embedded, or the
   * endpoint failed when they were): `not_ready`. Endpoint failures of the query itself are the client's.
   */
  onFallback?: (reason: 'not_ready') => void;
}

interface CardVectors {
  /** Vectors of all texts, and the card each belongs to (enabled-card order). */
  vectors: Float32Array[];
  owners: Int32Array;
  threshold: number;
  margin: number;
  paraphrase: number;
}

/** Creates the semantic index over `client`. */
export function createSemanticIndex(options: SemanticIndexOptions): SemanticIndex {
  const queryTimeoutMs = options.queryTimeoutMs ?? 1500;
  const quantile = options.quantile ?? 0.25;
  const models = new WeakMap<RegistrySnapshot, Promise<CardVectors | undefined>>();

  async function build(snapshot: RegistrySnapshot): Promise<CardVectors | undefined> {
    const texts: { text: string; owner: number; example: boolean }[] = [];
    snapshot.enabledAgents.forEach((card, owner) => {
      for (const example of card.examples) texts.push({ text: example, owner, example: true });
      texts.push({ text: `${card.name}: ${card.description}`, owner, example: false });
    });
    if (texts.length === 0) return undefined;
    const vectors = await options.client.embed(texts.map(({ text }) => ({ text, shared: true })));
    if (!vectors) return undefined;
    const owners = Int32Array.from(texts.map((entry) => entry.owner));
    const { threshold, margin, paraphrase } = calibrate(vectors, owners, texts.map((entry) => entry.example), snapshot.enabledAgents.length, quantile);
    return { vectors, owners, threshold, margin, paraphrase };
  }

  function modelOf(snapshot: RegistrySnapshot): Promise<CardVectors | undefined> {
    let model = models.get(snapshot);
    if (!model) {
      model = build(snapshot).catch(() => undefined);
      models.set(snapshot, model);
    }
    return model;
  }

  async function read(query: string, snapshot: RegistrySnapshot, signal?: AbortSignal): Promise<QueryMeaning | undefined> {
    if (query.trim().length === 0) return undefined;
    const model = await withTimeout(modelOf(snapshot), queryTimeoutMs);
    if (!model) {
      options.onFallback?.('not_ready');
      return undefined;
    }
    const controller = new AbortController();
    const abort = () => controller.abort();
    signal?.addEventListener('abort', abort, { once: true });
    const timer = setTimeout(abort, queryTimeoutMs);
    try {
      const vectors = await options.client.embed([{ text: query }], controller.signal);
      if (!vectors) return undefined;
      const similarity = new Float64Array(snapshot.enabledAgents.length);
      for (let index = 0; index < model.vectors.length; index += 1) {
        const owner = model.owners[index]!;
        similarity[owner] = Math.max(similarity[owner]!, cosine(vectors[0]!, model.vectors[index]!));
      }
      return { vector: vectors[0]!, scores: { similarity, threshold: model.threshold, margin: model.margin }, paraphrase: model.paraphrase };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    }
  }

  return {
    async prepare(snapshot) {
      return (await modelOf(snapshot)) !== undefined;
    },
    read,
    async scores(query, snapshot, signal) {
      return (await read(query, snapshot, signal))?.scores;
    },
  };
}

/**
 * Leave-one-out on the examples: each example's cosine to the closest other text of its card, and its lead
 * over the closest text of any other card; the `quantile` of each. And the cosines of pairs of examples of
 * one card, for `paraphrase`.
 */
function calibrate(
  vectors: readonly Float32Array[],
  owners: Int32Array,
  isExample: readonly boolean[],
  cardCount: number,
  quantile: number,
): { threshold: number; margin: number; paraphrase: number } {
  const own: number[] = [];
  const pairs: number[] = [];
  const rivals: number[] = [];
  const lead: number[] = [];
  const step = Math.max(1, Math.floor(vectors.length / 400));
  for (let index = 0; index < vectors.length; index += step) {
    if (!isExample[index]) continue;
    const best = new Float64Array(cardCount).fill(-1);
    for (let other = 0; other < vectors.length; other += 1) {
      if (other === index) continue;
      const owner = owners[other]!;
      const similarity = cosine(vectors[index]!, vectors[other]!);
      best[owner] = Math.max(best[owner]!, similarity);
      if (owner === owners[index] && isExample[other]) pairs.push(similarity);
    }
    const mine = best[owners[index]!]!;
    let rival = -1;
    for (let card = 0; card < cardCount; card += 1) if (card !== owners[index]) rival = Math.max(rival, best[card]!);
    own.push(mine);
    rivals.push(rival);
    lead.push(mine - rival);
  }
  if (own.length === 0) return { threshold: 1, margin: 1, paraphrase: 1 };
  const at = (values: number[], share: number) => values.sort((a, b) => a - b)[Math.floor(share * (values.length - 1))]!;
  // As close as most examples are to their own card, and closer than nearly all are to another card (a text
  // meant for no card is about as close to the registry as an example is to a card it is not meant for).
  const threshold = Math.max(at(own, quantile), at(rivals, 0.9));
  // Two examples of one card are two different requests to the same agent: a question counts as another's
  // paraphrase only when the two are closer than PARAPHRASE_SHARE of such pairs are (and above `threshold`).
  const paraphrase = pairs.length === 0 ? 1 : Math.max(threshold, at(pairs, PARAPHRASE_SHARE));
  return { threshold, margin: Math.max(0.02, at(lead, quantile)), paraphrase };
}

/** Share of same-card example pairs a paraphrase must be closer than. */
const PARAPHRASE_SHARE = 0.9;

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
