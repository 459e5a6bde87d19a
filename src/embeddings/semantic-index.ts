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
 * only above both.
 *
 * Nothing here can fail a turn: while a snapshot's cards are not embedded yet,
 * or when the endpoint fails or is slower than `queryTimeoutMs`, `scores`
 * resolves `undefined` and routing is the lexical recogniser's alone.
 */
import type { RegistrySnapshot } from '../registry/types.js';
import { cosine, type EmbeddingsClient } from './embeddings-client.js';

/** What the ranker reads: per card (enabled-card order), the query's cosine to the card's closest text. */
export interface SemanticScores {
  similarity: Float64Array;
  /** Cosine a route on meaning alone needs (calibrated). */
  threshold: number;
  /** Lead over the second card that route needs (calibrated). */
  margin: number;
}

/** The per-snapshot semantic model. */
export interface SemanticIndex {
  /** Starts embedding the snapshot's cards (idempotent); resolves when done (false when the endpoint failed). */
  prepare(snapshot: RegistrySnapshot): Promise<boolean>;
  /** The query's scores, or `undefined` (not ready, endpoint failed or too slow). */
  scores(query: string, snapshot: RegistrySnapshot, signal?: AbortSignal): Promise<SemanticScores | undefined>;
}

/** Settings. */
export interface SemanticIndexOptions {
  client: EmbeddingsClient;
  /** Longest a turn waits for its query's vector. Default 1500 ms. */
  queryTimeoutMs?: number;
  /** Quantile of the left-out examples' figures used as threshold and margin. Default 0.25. */
  quantile?: number;
}

interface CardVectors {
  /** Vectors of all texts, and the card each belongs to (enabled-card order). */
  vectors: Float32Array[];
  owners: Int32Array;
  threshold: number;
  margin: number;
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
    const { threshold, margin } = calibrate(vectors, owners, texts.map((entry) => entry.example), snapshot.enabledAgents.length, quantile);
    return { vectors, owners, threshold, margin };
  }

  function modelOf(snapshot: RegistrySnapshot): Promise<CardVectors | undefined> {
    let model = models.get(snapshot);
    if (!model) {
      model = build(snapshot).catch(() => undefined);
      models.set(snapshot, model);
    }
    return model;
  }

  return {
    async prepare(snapshot) {
      return (await modelOf(snapshot)) !== undefined;
    },
    async scores(query, snapshot, signal) {
      const model = await withTimeout(modelOf(snapshot), queryTimeoutMs);
      if (!model || query.trim().length === 0) return undefined;
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
        return { similarity, threshold: model.threshold, margin: model.margin };
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
      }
    },
  };
}

/**
 * Leave-one-out on the examples: each example's cosine to the closest other text of its card, and its lead
 * over the closest text of any other card; the `quantile` of each.
 */
function calibrate(vectors: readonly Float32Array[], owners: Int32Array, isExample: readonly boolean[], cardCount: number, quantile: number): { threshold: number; margin: number } {
  const own: number[] = [];
  const rivals: number[] = [];
  const lead: number[] = [];
  const step = Math.max(1, Math.floor(vectors.length / 400));
  for (let index = 0; index < vectors.length; index += step) {
    if (!isExample[index]) continue;
    const best = new Float64Array(cardCount).fill(-1);
    for (let other = 0; other < vectors.length; other += 1) {
      if (other === index) continue;
      const owner = owners[other]!;
      best[owner] = Math.max(best[owner]!, cosine(vectors[index]!, vectors[other]!));
    }
    const mine = best[owners[index]!]!;
    let rival = -1;
    for (let card = 0; card < cardCount; card += 1) if (card !== owners[index]) rival = Math.max(rival, best[card]!);
    own.push(mine);
    rivals.push(rival);
    lead.push(mine - rival);
  }
  if (own.length === 0) return { threshold: 1, margin: 1 };
  const at = (values: number[], share: number) => values.sort((a, b) => a - b)[Math.floor(share * (values.length - 1))]!;
  // As close as most examples are to their own card, and closer than nearly all are to another card (a text
  // meant for no card is about as close to the registry as an example is to a card it is not meant for).
  return { threshold: Math.max(at(own, quantile), at(rivals, 0.9)), margin: Math.max(0.02, at(lead, quantile)) };
}

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
