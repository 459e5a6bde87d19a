/**
 * Ranks capability cards with the registry's own examples (see
 * `example-index.ts`) and the cards' keywords, clause by clause.
 *
 * Per clause (and for the whole query when it has one clause):
 * - Keywords are strong evidence: a card whose keyword is in the clause is
 *   chosen (a keyword inside a longer known slot value does not count: "机场"
 *   in "首都机场" is a place). Several keyword cards in one clause are all kept
 *   unless the model finds one far less likely than the best of them; cards
 *   whose keywords a joining word (和 / and) stands between are always kept:
 *   the user named both requests ("北京明天的天气和明天从北京到上海的航班").
 * - Otherwise the model's most likely card is chosen when the clause is close
 *   enough to that card's examples (nearest-example cosine ≥ `minSimilarity`).
 *   A clause of a multi-clause turn must be closer (`minClauseSimilarity`), and
 *   closer still (`minSimilarityBesideKeyword`) when a keyword named a card
 *   elsewhere in the turn: an attribute clause ("评分在4分以上", "给我推荐一家吧")
 *   qualifies the request next to it and must not add an agent of its own.
 *   A clause whose best card is already chosen adds nothing.
 * - When no clause chose anything, the whole query is tried the same way.
 *
 * "No agent" therefore means no keyword and nothing close to any card's
 * examples: out of scope. Scores: keyword → 0.75 + 0.25 × similarity,
 * similarity only → 0.7 × similarity, so a keyword match always ranks first.
 *
 * The model is trained once per snapshot (`prepare`, called by the registry
 * before a snapshot goes live) and kept in a WeakMap keyed by the frozen
 * snapshot, so it is swapped together with the snapshot.
 */
import type { RegistrySnapshot } from '../../registry/index.js';
import type { AgentMatch, AgentRanker, RankResult, RankText } from './card-ranker.js';
import type { ExampleScores, TextMask } from './example-index.js';
import type { SemanticScores } from '../../embeddings/index.js';
import { fuseMeaning } from './meaning-fusion.js';
import { shortlistOf } from './shortlist.js';
import { agreedCard, chosenCard } from './gram-evidence.js';
import { splitRequests } from '../../understanding/index.js';
import { buildModel, keywordFreeExamples, type SnapshotModel } from './ranker-model.js';
import { familyCard } from './registry-evidence.js';
import { calibrateGate, type GateCalibrationOptions } from './gate-calibration.js';
import { argmax, confidenceOf, coordinatedCards, enoughEvidence, PLACE_BEFORE, reasonOf, round, unitsOf, type Unit } from './match-rules.js';

/** Thresholds of the example ranker; defaults set on the sample sets (`switchboard eval`). */
export interface ExampleRankerOptions {
  /**
   * Nearest-example cosine for a single-clause query to be routed without a keyword. Default: calibrated per
   * registry, `calibration` × how close each card's examples are to one another (`ExampleIndex.selfSimilarity`),
   * kept within 0.12..0.3.
   */
  minSimilarity?: number;
  /** Share of the examples' own closeness a query must reach when `minSimilarity` is not given. Default 0.5. */
  calibration?: number;
  /** The same for one clause of a multi-clause turn. Default 0.3. */
  minClauseSimilarity?: number;
  /** The same when a keyword chose a card elsewhere in the turn. Default 0.45. */
  minSimilarityBesideKeyword?: number;
  /** Several keyword cards in one clause: keep those at least this share of the best one's probability. Default 0.05. */
  keywordShare?: number;
  /** Similarity needed when the text shares only one word / Chinese term with the card. Default 0.15. */
  singleTermSimilarity?: number;
  /** Share of the text's feature mass the model has seen in training, needed to route without a keyword. Default 0.2. */
  minFamiliar?: number;
  /** Share of the text's feature mass a card's texts must hold for a route without a keyword. Default: calibrated (`gate-calibration.ts`). */
  minCovered?: number;
  /** Cosine to the card's centroid needed for that route. Default: calibrated (`gate-calibration.ts`). */
  minCentroid?: number;
  /** How the gate is calibrated on the registry's examples when `minCovered` / `minCentroid` are not given. */
  gateCalibration?: GateCalibrationOptions;
  /** Keyword-character evidence (`registry-evidence.ts`) that routes a request nothing else routes. Default 0.6. */
  minCharacterEvidence?: number;
  /** Nearest-example cosine that routes without `minCovered` / `minCentroid`. Default 0.5. */
  closeExample?: number;
  /** Longer queries are ranked on this many characters of their normal form. Default 2000. */
  maxQueryLength?: number;
}

/** A ranker that can be trained ahead of use. */
export interface ExampleRanker extends AgentRanker {
  /** Trains the model of `snapshot` now (idempotent), so no request pays for it. */
  prepare(snapshot: RegistrySnapshot): void;
  /** Cards most likely meant by `query`, best first, for pre-selection: keyword cards, then by probability. */
  candidates(query: RankText, snapshot: RegistrySnapshot, limit: number, semantic?: SemanticScores): string[];
}


/** Floor of the calibrated similarity threshold. */
const MIN_SIMILARITY = 0.12;
/** A clause this close to one of a card's examples is that example (values aside): it goes there, whatever keyword it holds. */
const OWN_EXAMPLE = 0.95;
/** ... when every card whose keyword it holds is at least this much farther from it. */
const OWN_EXAMPLE_MARGIN = 0.4;
/** Ceiling of the calibrated similarity threshold. */
const MAX_CALIBRATED_SIMILARITY = 0.3;

/** Creates the ranker with its own per-snapshot model cache. */
export function createExampleRanker(options: ExampleRankerOptions = {}): ExampleRanker {
  const calibrate = options.calibration ?? 0.5;
  const minClauseSimilarity = options.minClauseSimilarity ?? 0.3;
  const minSimilarityBesideKeyword = options.minSimilarityBesideKeyword ?? 0.35;
  const keywordShare = options.keywordShare ?? 0.05;
  const singleTermSimilarity = options.singleTermSimilarity ?? 0.15;
  const maxQueryLength = options.maxQueryLength ?? 2000;
  const minFamiliar = options.minFamiliar ?? 0.2;
  const closeExample = options.closeExample ?? 0.5;
  const minCharacterEvidence = options.minCharacterEvidence ?? 0.6;
  const models = new WeakMap<RegistrySnapshot, SnapshotModel>();

  function modelFor(snapshot: RegistrySnapshot): SnapshotModel {
    let model = models.get(snapshot);
    if (!model) {
      model = buildModel(snapshot);
      // Calibrated on the registry's own examples: where a card's examples are close to each other (templated
      // registries), an unrelated query must come closer too; varied examples keep the floor.
      model.minSimilarity = options.minSimilarity ?? Math.min(MAX_CALIBRATED_SIMILARITY, Math.max(MIN_SIMILARITY, calibrate * model.index.selfSimilarity));
      // The out-of-scope gate, on the examples a keyword of their own card does not route (leave-one-out).
      const gate = calibrateGate(model.index, keywordFreeExamples(model), (text) => model!.masksOf(text), options.gateCalibration);
      model.minCovered = options.minCovered ?? gate.minCovered;
      model.minCentroid = options.minCentroid ?? gate.minCentroid;
      models.set(snapshot, model);
    }
    return model;
  }

  // The message's normal form, read once by the turn (`understanding/`), and its clauses: nothing is normalised or split here.
  function analyse(query: RankText, snapshot: RegistrySnapshot) {
    const model = modelFor(snapshot);
    const text = (typeof query?.normalizedQuery === 'string' ? query.normalizedQuery : '').slice(0, maxQueryLength);
    const units = unitsOf(text, query?.clauses ?? []);
    const allKeywordHits = model.keywords.findAll(text, { overlapping: true });
    const valueHits = model.masksOf(text);
    const insideValue = (hit: { start: number; end: number }) =>
      valueHits.filter((value) => value.start <= hit.start && hit.end <= value.end && value.end - value.start > hit.end - hit.start);
    const keywordHits = allKeywordHits.filter((hit) => insideValue(hit).length === 0);
    // A keyword that is the label of a value ("订单 2024051812345678") is not a request on its own (the user may be
    // asking where that order's parcel is), but it says which card the value is about.
    const labelHits = allKeywordHits.filter((hit) => {
      const values = insideValue(hit);
      return values.length > 0 && values.every((value) => value.value !== undefined && (hit.end <= value.value.start || hit.start >= value.value.end));
    });
    // `alsoMask`: further spans of the text (e.g. keywords naming a place) to leave out.
    const scoreUnit = (unit: Unit, alsoMask: readonly TextMask[] = []): ExampleScores =>
      model.index.score(
        model.withSynonyms(unit.text),
        [...valueHits, ...alsoMask].filter((hit) => hit.start >= unit.start && hit.end <= unit.end).map((hit) => ({ start: hit.start - unit.start, end: hit.end - unit.start })),
      );
    const gramsOf = (unit: Unit, alsoMask: readonly TextMask[] = []): Float64Array =>
      model.grams.probabilities(
        unit.text,
        [...valueHits, ...alsoMask].filter((hit) => hit.start >= unit.start && hit.end <= unit.end).map((hit) => ({ start: hit.start - unit.start, end: hit.end - unit.start })),
      );
    return { model, text, units, keywordHits, labelHits, valueHits, scoreUnit, gramsOf };
  }

  return {
    prepare(snapshot) {
      modelFor(snapshot);
    },

    shortlist(query, snapshot, limit) {
      const { model, text, scoreUnit, gramsOf } = analyse(query, snapshot);
      if (text.length === 0 || model.cards.length === 0) return { candidates: [], covered: 0, centroid: 0, shared: 0, backing: 0, separable: model.gramReorders };
      const whole = { text, start: 0, end: text.length };
      const list = shortlistOf(scoreUnit(whole), gramsOf(whole), limit);
      return { candidates: list.entries.map((entry) => ({ agentId: model.cards[entry.cardIndex]!.id, share: entry.share })), covered: list.covered, centroid: list.centroid, shared: list.shared, backing: list.backing, separable: model.gramReorders };
    },

    candidates(query, snapshot, limit, semantic) {
      const { model, text, units, keywordHits, labelHits, valueHits, scoreUnit } = analyse(query, snapshot);
      if (text.length === 0 || model.cards.length === 0) return [];
      const chosen = new Set<string>();
      // Keywords, including those that label a value ("订单 2024051812345678"): the model decides what is asked.
      for (const hit of [...keywordHits, ...labelHits]) for (const cardIndex of hit.payloads) chosen.add(model.cards[cardIndex]!.id);
      for (const hit of valueHits) if (hit.owner !== undefined) chosen.add(model.cards[hit.owner]!.id);
      // Round-robin over the whole query and each clause, best first, so every request of a turn gets a place.
      const rankings = units.map((unit) => {
        const scores = scoreUnit(unit);
        return [...scores.posterior.keys()].sort((a, b) => scores.posterior[b]! - scores.posterior[a]! || scores.nearest[b]! - scores.nearest[a]!);
      });
      // With embeddings, the cards closest in meaning take turns with the lexical rankings.
      if (semantic) rankings.splice(1, 0, [...semantic.similarity.keys()].sort((a, b) => semantic.similarity[b]! - semantic.similarity[a]!));
      for (let rank = 0; chosen.size < limit && rank < model.cards.length; rank += 1) {
        for (const ranking of rankings) if (chosen.size < limit) chosen.add(model.cards[ranking[rank]!]!.id);
      }
      return [...chosen];
    },

    rank(query, snapshot, semantic): RankResult {
      const { model, text, units, keywordHits, labelHits, valueHits, scoreUnit, gramsOf } = analyse(query, snapshot);
      if (text.length === 0 || model.cards.length === 0) return { intents: [], confidence: 'low', reason: 'empty query or no enabled agents' };
      const { minSimilarity, minCovered, minCentroid } = model;
      const inside = (unit: Unit) => (hit: TextMask) => hit.start >= unit.start && hit.end <= unit.end;
      const byValueKind = (unit: Unit): { cardIndex: number; similarity: number; value?: string } | undefined => {
        const kinds = valueHits.filter((hit) => hit.family !== undefined && inside(unit)(hit));
        if (kinds.length === 0) return undefined;
        const labels = labelHits.filter(inside(unit));
        const rest = scoreUnit(unit, labels);
        // An unlabelled value (a date, a place after 去) needs a content word in common; a labelled one any word.
        const cardIndex = familyCard(new Set(kinds.flatMap((hit) => hit.family!)), rest, labels.length > 0);
        if (cardIndex === undefined || rest.familiar < minFamiliar) return undefined;
        const hit = kinds.find((kind) => kind.family!.includes(cardIndex))!;
        return { cardIndex, similarity: rest.nearest[cardIndex]!, value: text.slice(hit.value?.start ?? hit.start, hit.value?.end ?? hit.end) };
      };
      const byKeywordCharacters = (unit: Unit): { cardIndex: number; similarity: number; value?: string } | undefined => {
        const evidence = model.keywordCharacters.evidence(unit.text, valueHits.filter(inside(unit)).map((hit) => ({ start: hit.start - unit.start, end: hit.end - unit.start })));
        const cardIndex = argmax(evidence);
        const second = Math.max(...evidence.filter((_, index) => index !== cardIndex), 0);
        if (evidence[cardIndex]! < minCharacterEvidence || evidence[cardIndex]! - second < minCharacterEvidence / 2) return undefined;
        // The words around must not point elsewhere: the card is one of the model's two most likely, at a fair share.
        const scores = scoreUnit(unit);
        const above = scores.posterior.filter((posterior) => posterior > scores.posterior[cardIndex]!).length;
        const agrees = above <= 1 && scores.posterior[cardIndex]! >= 0.2 && scores.familiar >= minFamiliar / 2;
        return agrees ? { cardIndex, similarity: scores.nearest[cardIndex]! } : undefined;
      };
      // The discriminative model's word where the example model is unsure (`gram-evidence.ts`).
      const gramOptions = { confidence: model.gramConfidence, minFamiliar };
      const byGrams = (unit: Unit): { cardIndex: number; similarity: number; value?: string } | undefined => {
        const scores = scoreUnit(unit);
        const cardIndex = agreedCard(scores, gramsOf(unit), gramOptions, (card) => model.keywordCharacters.strays(unit.text, card));
        return cardIndex === undefined ? undefined : { cardIndex, similarity: scores.nearest[cardIndex]! };
      };
      // A route the example model's most likely card earned (its similarity is what the thresholds below read),
      // given to the card both models support best.
      const similarityRoute = (scores: ExampleScores, cardIndex: number, unit: Unit) => ({ cardIndex: model.gramReorders ? chosenCard(scores, gramsOf(unit), gramOptions) : cardIndex, similarity: scores.nearest[cardIndex]!, unit });
      const multiClause = units.length > 1;
      // Out of scope questions share a word or two with some card ("set an alarm" → "set my PIN"); a request
      // is mostly told in the card's own terms and near its examples as a whole (its centroid), or very close to
      // one example.
      const inCardTerms = (scores: ExampleScores, cardIndex: number) =>
        scores.nearest[cardIndex]! >= closeExample || (scores.covered[cardIndex]! >= minCovered && scores.centroid[cardIndex]! >= minCentroid);
      // What a route on similarity alone needs: familiar words, real words in common, the card's own terms.
      const routable = (scores: ExampleScores, cardIndex: number, singleTerm = singleTermSimilarity) =>
        scores.familiar >= minFamiliar && enoughEvidence(scores, cardIndex, singleTerm) && inCardTerms(scores, cardIndex);
      const clauses = multiClause ? units.slice(1) : units;
      // A keyword that is where the user goes or comes from ("叫个车去酒店", "a ride to my hotel") names a place,
      // not a request: it routes only when nothing else in its clause does.
      const isPlace = (hit: { start: number }) => PLACE_BEFORE.test(text.slice(Math.max(0, hit.start - 12), hit.start));
      const anyKeyword = keywordHits.some((hit) => !isPlace(hit));
      const chosen = new Map<number, AgentMatch>();
      const choose = (cardIndex: number, match: Omit<AgentMatch, 'agentId'>) => {
        const previous = chosen.get(cardIndex);
        // A card a keyword named keeps that clause: a value elsewhere that names the same card ("我要补卡，身份证号…")
        // is that request's attribute, not the request.
        const keepsKeyword = previous !== undefined && previous.keywords.length > 0 && match.keywords.length === 0;
        const takesKeyword = previous !== undefined && previous.keywords.length === 0 && match.keywords.length > 0;
        if (!previous || takesKeyword || (match.score > previous.score && !keepsKeyword)) chosen.set(cardIndex, { agentId: model.cards[cardIndex]!.id, ...match });
      };

      const similarityOnly: { cardIndex: number; similarity: number; unit: Unit }[] = [];
      const plainClauses: Unit[] = [];
      for (const unit of clauses) {
        // Scored when a rule needs it: a keyword-free turn of several clauses is scored request by request below.
        let clauseScores: ExampleScores | undefined;
        const scoresOf = () => (clauseScores ??= scoreUnit(unit));
        const keywordCards = new Map<number, { keywords: Set<string>; position: number; spans: { start: number; end: number }[] }>();
        const inUnit = keywordHits.filter((hit) => hit.start >= unit.start && hit.end <= unit.end);
        const requestHits = inUnit.filter((hit) => !isPlace(hit));
        if (requestHits.length === 0 && inUnit.length > 0) {
          // Only places named in a turn of several clauses and no keyword: the turn's requests decide (below).
          if (multiClause && !anyKeyword) continue;
          // Only places named: the clause's request is whatever its words are closest to, when that is another card.
          const rest = scoreUnit(unit, inUnit);
          const cardIndex = argmax(rest.posterior);
          const placeCards = new Set(inUnit.flatMap((hit) => hit.payloads));
          // The rest of the clause must point clearly at that card (most of its probability, familiar words).
          if (!placeCards.has(cardIndex) && rest.posterior[cardIndex]! >= 0.5 && rest.familiar >= minFamiliar && rest.nearest[cardIndex]! > 0) {
            const similarity = rest.nearest[cardIndex]!;
            choose(cardIndex, { score: round(0.75 + 0.25 * similarity), keywords: [], coverage: round(similarity), clause: unit.text, position: unit.start });
            continue;
          }
        }
        // No keyword, but a value labelled with a card's keyword ("查一下订单 2024051812345678 的状态"): the clause is
        // that card's request when its own words (label and value left out) are closest to that card too. A bare
        // labelled value ("订单号 2024051812345678") or words of another request ("订单 123… 什么时候能送到") are not.
        const labelsInUnit = inUnit.length > 0 ? [] : labelHits.filter((hit) => hit.start >= unit.start && hit.end <= unit.end);
        if (labelsInUnit.length > 0) {
          const rest = scoreUnit(unit, labelsInUnit);
          const cardIndex = argmax(rest.posterior);
          const labelled = labelsInUnit.filter((hit) => hit.payloads.includes(cardIndex));
          if (labelled.length > 0 && rest.familiar >= minFamiliar && enoughEvidence(rest, cardIndex, singleTermSimilarity)) {
            const similarity = scoresOf().nearest[cardIndex]!;
            choose(cardIndex, { score: round(0.75 + 0.25 * similarity), keywords: [...new Set(labelled.map((hit) => hit.phrase))], coverage: round(similarity), clause: unit.text, position: labelled[0]!.start });
            continue;
          }
        }
        // No keyword, but a kind of value a family of cards asks for ("帮我看下订单 2024051812345678 买了什么"): one of
        // that family, the one the clause's own words point at (`registry-evidence.ts`).
        const byKind = inUnit.length > 0 ? undefined : byValueKind(unit);
        if (byKind) {
          choose(byKind.cardIndex, { score: round(0.7 + 0.25 * byKind.similarity), keywords: [], value: byKind.value, coverage: round(byKind.similarity), clause: unit.text, position: unit.start });
          continue;
        }
        // No keyword at all: a value only one card asks for ("七天无理由", "首都机场") names that card.
        const ownedValues = inUnit.length > 0 ? [] : valueHits.filter((hit) => hit.owner !== undefined && hit.start >= unit.start && hit.end <= unit.end);
        for (const hit of ownedValues) {
          const similarity = scoresOf().nearest[hit.owner!]!;
          choose(hit.owner!, { score: round(0.7 + 0.25 * similarity), keywords: [], value: text.slice(hit.start, hit.end), coverage: round(similarity), clause: unit.text, position: hit.start });
        }
        if (ownedValues.length > 0) continue;
        for (const hit of requestHits.length > 0 ? requestHits : inUnit) {
          for (const cardIndex of hit.payloads) {
            const entry = keywordCards.get(cardIndex) ?? { keywords: new Set<string>(), position: hit.start, spans: [] };
            entry.keywords.add(hit.phrase);
            entry.spans.push({ start: hit.start, end: hit.end });
            keywordCards.set(cardIndex, entry);
          }
        }
        if (keywordCards.size > 0) {
          const scores = scoresOf();
          // The clause is one of another card's own examples (values aside) and far from every keyword card's:
          // the registry said where it goes ("年假有几天" is the policy card's example, though 年假 is the leave card's keyword).
          const exampleCard = argmax(scores.nearest);
          const keywordNearest = Math.max(...[...keywordCards.keys()].map((cardIndex) => scores.nearest[cardIndex]!));
          if (!keywordCards.has(exampleCard) && scores.nearest[exampleCard]! >= OWN_EXAMPLE && keywordNearest <= scores.nearest[exampleCard]! - OWN_EXAMPLE_MARGIN) {
            const similarity = scores.nearest[exampleCard]!;
            choose(exampleCard, { score: round(0.75 + 0.25 * similarity), keywords: [], coverage: round(similarity), clause: unit.text, position: unit.start });
            continue;
          }
          const best = Math.max(...[...keywordCards.keys()].map((cardIndex) => scores.posterior[cardIndex]!));
          const coordinated = coordinatedCards(text, keywordCards);
          for (const [cardIndex, entry] of keywordCards) {
            if (keywordCards.size > 1 && !coordinated.has(cardIndex) && scores.posterior[cardIndex]! < keywordShare * best) continue;
            const similarity = scores.nearest[cardIndex]!;
            choose(cardIndex, { score: round(0.75 + 0.25 * similarity), keywords: [...entry.keywords], coverage: round(similarity), clause: unit.text, position: entry.position });
          }
          continue;
        }
        // A turn with no keyword: its requests are found below, between the words that start another one.
        if (multiClause && !anyKeyword) {
          plainClauses.push(unit);
          continue;
        }
        const scores = scoresOf();
        const cardIndex = argmax(scores.posterior);
        if (routable(scores, cardIndex)) similarityOnly.push(similarityRoute(scores, cardIndex, unit));
      }
      // No keyword anywhere: clauses joined by a comma, a full stop or "and" are one request told in parts
      // ("I ordered my card 2 weeks ago and it still isn't here? What do I do?"); each part would look like
      // another card. Only 另外 / 还有 / "and also" … start another request, scored on its own.
      const requests: Unit[] = (multiClause ? splitRequests(text, clauses) : []).map((request) => ({ text: request.text, start: request.start, end: request.start + request.text.length }));
      if (!anyKeyword) {
        for (const unit of requests) {
          const scores = scoreUnit(unit);
          const cardIndex = argmax(scores.posterior);
          if (routable(scores, cardIndex)) similarityOnly.push(similarityRoute(scores, cardIndex, unit));
        }
      }
      // Beside a keyword, a clause the user made a request of its own ("订一张明天飞上海的票，再在上海订个酒店")
      // needs what any clause of a several-request turn needs; one told with the keyword's request (an attribute,
      // "评分在4分以上") needs more.
      const isOwnRequest = (unit: Unit) => {
        const request = requests.find((entry) => entry.start <= unit.start && unit.end <= entry.end);
        return request !== undefined && !keywordHits.some((hit) => !isPlace(hit) && hit.start >= request.start && hit.end <= request.end);
      };
      const neededBy = (unit: Unit) =>
        !multiClause || (!anyKeyword && requests.length === 1) ? minSimilarity : anyKeyword && !isOwnRequest(unit) ? minSimilarityBesideKeyword : minClauseSimilarity;
      for (const { cardIndex, similarity, unit } of similarityOnly) {
        if (chosen.has(cardIndex) || similarity < neededBy(unit)) continue;
        choose(cardIndex, { score: round(0.7 * similarity), keywords: [], coverage: round(similarity), clause: unit.text, position: unit.start });
      }
      // One request whose whole text is not close enough to any card (a value or a second remark blurs it):
      // its clearest clause decides, alone ("东西寄出了吗，单号 1234567890").
      if (chosen.size === 0 && !anyKeyword && requests.length === 1) {
        const clauseOnly = plainClauses.flatMap((unit) => {
          const scores = scoreUnit(unit);
          const cardIndex = argmax(scores.posterior);
          const similarity = scores.nearest[cardIndex]!;
          return similarity >= minClauseSimilarity && routable(scores, cardIndex) ? [{ cardIndex, similarity, unit }] : [];
        });
        const best = clauseOnly.sort((a, b) => b.similarity - a.similarity)[0];
        if (best) choose(best.cardIndex, { score: round(0.7 * best.similarity), keywords: [], coverage: round(best.similarity), clause: best.unit.text, position: best.unit.start });
      }
      // No keyword and nothing chosen: the registry's other evidence, request by request — a kind of value
      // ("衣服不合身，想退掉，订单号 1234567890"), then the characters of a card's keywords ("这件外套有没有L码"), then
      // both models naming one card for a turn that is one request (a part of several says too little).
      if (chosen.size === 0 && !anyKeyword) {
        const single = requests.length <= 1;
        for (const unit of requests.length > 0 ? requests : units.slice(0, 1)) {
          const found = byValueKind(unit) ?? byKeywordCharacters(unit) ?? (single ? byGrams(unit) : undefined);
          if (found) choose(found.cardIndex, { score: round(0.7 * Math.max(found.similarity, minSimilarity)), keywords: [], coverage: round(found.similarity), clause: unit.text, position: unit.start, ...(found.value ? { value: found.value } : {}) });
        }
      }
      // Several requests, none close enough alone: the whole text may still be (a single request was scored whole above).
      if (chosen.size === 0 && multiClause && requests.length > 1) {
        const whole = units[0]!;
        const scores = scoreUnit(whole);
        const cardIndex = argmax(scores.posterior);
        const similarity = scores.nearest[cardIndex]!;
        if (similarity >= minSimilarity && routable(scores, cardIndex, minClauseSimilarity)) choose(cardIndex, { score: round(0.7 * similarity), keywords: [], coverage: round(similarity), clause: whole.text, position: 0 });
      }
      if (semantic) fuseMeaning(semantic, chosen, anyKeyword, choose, text);
      const intents = [...chosen.values()].sort((a, b) => b.score - a.score || a.position - b.position);
      return { intents, confidence: confidenceOf(intents), reason: reasonOf(intents) };
    },
  };
}
