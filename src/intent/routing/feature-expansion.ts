/**
 * Evidence a card gets for a word its own examples never use, from the words
 * that play the same part across the registry.
 *
 * A word's profile is its mass in each card. Two words with near-identical
 * profiles are used interchangeably by the registry's authors: "reserve",
 * "set up" and "book" all appear in the booking cards, "退掉" and "取消" in
 * the cancelling ones. When a query says "book" to a card whose examples only
 * say "reserve" and "arrange", plain naive Bayes sees nothing; here the card
 * gets part of the evidence it would have had, through the words whose
 * profiles are close to "book"'s. A card that has none of those words (the
 * status card of the same object) gets nothing, so the query's verb can now
 * tell them apart.
 *
 * Only words spread over several cards but not over most of them are
 * expanded (a word confined to one card is that card's own vocabulary, and
 * spreading it would blur cards of the same domain; a word most cards hold is
 * a sentence frame), only through whole words and Chinese terms, and only
 * towards cards that lack the word. Cost: one sparse
 * pass per expanded word over the cards that hold it, at training time only.
 */

/** The mass of each feature in one card (parallel arrays). */
export interface CardMass {
  ids: Int32Array;
  masses: Float32Array;
}

/** Tuning of the expansion; defaults measured with `switchboard eval` (docs/decisions/0021-routing-generalisation.md). */
export interface FeatureExpansionOptions {
  /** Share of the evidence an expanded word gives, relative to a word the card has. Default 0.8 (docs/decisions/0026-requests-of-a-turn-and-out-of-scope.md). */
  weight?: number;
  /** Least cosine between two words' card profiles for one to stand for the other. Default 0.5. */
  minSimilarity?: number;
  /** Only words found in at least this many cards are expanded. Default 2. */
  minCards?: number;
  /** Most similar words used per expanded word. Default 20. */
  maxNeighbours?: number;
}

/**
 * Extra naive Bayes evidence per card: for every feature the card lacks but
 * whose stand-ins it has, `weight × log(1 + mass via stand-ins / smoothing)`.
 */
export function expandEvidence(
  featureCount: number,
  cards: readonly CardMass[],
  smoothing: number,
  /** 1 for the features that may expand or stand in (whole words and Chinese terms, not character pieces). */
  eligible: Uint8Array,
  options: FeatureExpansionOptions = {},
): CardMass[] {
  const weight = options.weight ?? 0.8;
  const minSimilarity = options.minSimilarity ?? 0.5;
  const minCards = options.minCards ?? 2;
  const maxNeighbours = options.maxNeighbours ?? 20;
  const maxSpread = Math.max(minCards, Math.floor(cards.length / 2));

  // Feature → (card, mass) lists.
  const offsets = new Int32Array(featureCount + 1);
  for (const card of cards) for (const id of card.ids) offsets[id + 1]! += 1;
  for (let feature = 0; feature < featureCount; feature += 1) offsets[feature + 1]! += offsets[feature]!;
  const fill = offsets.slice(0, featureCount);
  const owner = new Int32Array(offsets[featureCount]!);
  const ownerMass = new Float32Array(offsets[featureCount]!);
  const norm = new Float64Array(featureCount);
  cards.forEach((card, cardIndex) => {
    for (let index = 0; index < card.ids.length; index += 1) {
      const id = card.ids[index]!;
      const at = fill[id]!;
      fill[id] = at + 1;
      owner[at] = cardIndex;
      ownerMass[at] = card.masses[index]!;
      norm[id]! += card.masses[index]! * card.masses[index]!;
    }
  });
  for (let feature = 0; feature < featureCount; feature += 1) norm[feature] = Math.sqrt(norm[feature]!);

  // Each card's eligible words only, so the similarity pass never looks at character pieces.
  const words = cards.map((card) => {
    const ids: number[] = [];
    const masses: number[] = [];
    for (let index = 0; index < card.ids.length; index += 1) {
      if (eligible[card.ids[index]!] !== 1) continue;
      ids.push(card.ids[index]!);
      masses.push(card.masses[index]!);
    }
    return { ids: Int32Array.from(ids), masses: Float32Array.from(masses) };
  });
  const extraIds: number[][] = cards.map(() => []);
  const extraWeights: number[][] = cards.map(() => []);
  const dot = new Float64Array(featureCount);
  const via = new Float64Array(cards.length);
  const holds = new Uint8Array(cards.length);
  for (let feature = 0; feature < featureCount; feature += 1) {
    const start = offsets[feature]!;
    const end = offsets[feature + 1]!;
    // A word most cards hold (a sentence frame) tells nothing whichever card lacks it.
    if (eligible[feature] !== 1 || end - start < minCards || end - start > maxSpread || norm[feature] === 0) continue;
    const touched: number[] = [];
    for (let at = start; at < end; at += 1) {
      const card = words[owner[at]!]!;
      const mass = ownerMass[at]!;
      holds[owner[at]!] = 1;
      for (let index = 0; index < card.ids.length; index += 1) {
        const other = card.ids[index]!;
        if (other === feature) continue;
        if (dot[other] === 0) touched.push(other);
        dot[other]! += mass * card.masses[index]!;
      }
    }
    const neighbours: { id: number; similarity: number }[] = [];
    for (const other of touched) {
      const similarity = dot[other]! / (norm[feature]! * norm[other]!);
      dot[other] = 0;
      if (similarity >= minSimilarity) neighbours.push({ id: other, similarity });
    }
    neighbours.sort((a, b) => b.similarity - a.similarity);
    const reached: number[] = [];
    for (const { id, similarity } of neighbours.slice(0, maxNeighbours)) {
      for (let at = offsets[id]!, stop = offsets[id + 1]!; at < stop; at += 1) {
        const cardIndex = owner[at]!;
        if (holds[cardIndex] === 1) continue;
        if (via[cardIndex] === 0) reached.push(cardIndex);
        via[cardIndex]! += similarity * ownerMass[at]!;
      }
    }
    for (const cardIndex of reached) {
      extraIds[cardIndex]!.push(feature);
      extraWeights[cardIndex]!.push(weight * Math.log(1 + via[cardIndex]! / smoothing));
      via[cardIndex] = 0;
    }
    for (let at = start; at < end; at += 1) holds[owner[at]!] = 0;
  }
  return extraIds.map((ids, cardIndex) => ({ ids: Int32Array.from(ids), masses: Float32Array.from(extraWeights[cardIndex]!) }));
}
