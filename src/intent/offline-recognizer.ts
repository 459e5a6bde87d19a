/**
 * The offline `IntentRecognizer`: word lists, card ranking by the cards' examples and a
 * short-term-memory rewrite, no model. It is the only recognizer when no LLM
 * is configured and the fallback when the LLM's reply cannot be used.
 *
 * Safety words decide first: an empty query is out of scope, a request for a
 * human escalates, abusive and sensitive words win over any business match.
 * Then a short follow-up goes on with the previous turn's agents
 * (`understanding/follow-up.ts`), ranked cards give business intents
 * (`routing/example-ranker.ts`), and greetings, thanks and capability
 * questions are simple turns; anything else is out of scope.
 *
 * The rewrite keeps a request together across turns: a reply that only
 * supplies values for the agents carried from last turn (parked ones first)
 * is read as the earlier request plus the new words, so keys given before
 * are kept and the latest mention of a value wins. A query that matches cards
 * stands on its own, unless it completes a parked request in other words.
 */
import type { RegistrySnapshot } from '../registry/index.js';
import type { IntentInput, IntentRecognizer, IntentResult, MemoryTurn, RankedIntent } from './types.js';
import type { AgentMatch, AgentRanker, RankResult, RankText } from './routing/card-ranker.js';
import { createExampleRanker } from './routing/example-ranker.js';
import { composeDirectAnswer, composeIntentMessage } from './simple/direct-answers.js';
import { extractOne, orderByMention } from '../text/index.js';
import { createWordOwnership, isFollowUp, refersToPreviousTurn, splitRequests, withoutComparison, withoutPlaceReference, type Clause } from '../understanding/index.js';
import { createSnapshotClassifiers, residualUnits, type SimpleIntentLexicon } from './simple/simple-intents.js';
import { readAsAnswer } from '../planning/index.js';
import { readAttributeClause } from './routing/attribute-clause.js';
import { clarificationQuestionText, type Language } from '../i18n/index.js';
import type { SemanticIndex } from '../embeddings/index.js';
import { buildClarification, decideClarification, DEFAULT_CLARIFY_THRESHOLDS, MAX_CLARIFICATION_OPTIONS, type ClarifyThresholds } from './clarification.js';

/** Options of the offline recognizer; every field has a default. */
export interface OfflineRecognizerOptions {
  /** Replaces individual word lists (greetings, sensitive words …). */
  lexicon?: Partial<SimpleIntentLexicon>;
  /** Card ranking (default: the example ranker, trained per snapshot from the cards' examples). */
  ranker?: AgentRanker;
  /** Clock for relative dates while checking whether a reply is a fragment. Default `() => new Date()`. */
  now?: () => Date;
  /** Chinese characters / Latin words allowed in a fragment besides the key values. Default 4. */
  maxFragmentResidue?: number;
  /**
   * Word meaning from the optional embeddings endpoint: the query is embedded once and its scores are fused
   * with the lexical ranking (`routing/meaning-fusion.ts`). Absent, slow or failing: routing is lexical only.
   */
  semantic?: SemanticIndex;
  /**
   * When a request routed on similarity alone, or not routed, is asked about instead (`clarification.ts`);
   * `false` never asks. Needs a ranker with a `shortlist`.
   */
  clarify?: Partial<ClarifyThresholds> | false;
}

/** Creates the offline recognizer. Throws a `TypeError` naming the bad option. */
export function createOfflineRecognizer(options: OfflineRecognizerOptions = {}): IntentRecognizer {
  const classifierFor = createSnapshotClassifiers(options.lexicon);
  const ranker = options.ranker ?? createExampleRanker();
  const now = options.now ?? (() => new Date());
  const ownership = createWordOwnership();
  const maxFragmentResidue = options.maxFragmentResidue ?? 4;
  const clarify = options.clarify === false ? undefined : { ...DEFAULT_CLARIFY_THRESHOLDS, ...options.clarify };
  if (!Number.isFinite(maxFragmentResidue) || maxFragmentResidue < 0) {
    throw new TypeError('offline recognizer: maxFragmentResidue must be a non-negative number');
  }

  return {
    async recognize(input: IntentInput): Promise<IntentResult> {
      input.signal?.throwIfAborted();
      assertInput(input);
      const { snapshot } = input;
      // `text` is what the user typed (trimmed), kept for the rewrite and replies;
      // `query` is its normal form, read once for the turn and used for all matching.
      const text = input.query.trim();
      const query = input.normalizedQuery;
      const { language } = input;
      if (query.length === 0) return simple('out_of_scope', snapshot, text, language, 'empty query', 'high');

      const classifier = classifierFor(snapshot);
      const override = classifier.findOverride(query);
      if (override) {
        if (override.kind === 'escalate') {
          return {
            kind: 'escalate',
            intents: [],
            confidence: 'high',
            reason: `asked for a human: "${override.phrase}"`,
            rewrittenQuery: text,
            userFriendlyMessage: composeDirectAnswer('escalate', snapshot, language, text),
          };
        }
        return simple(override.kind, snapshot, text, language, `${override.kind} word: "${override.phrase}"`, 'high');
      }

      const carried = carriedAgents(input, snapshot);
      const previous = input.history[input.history.length - 1];
      // The turn's one reading of the query's meaning when the graph gives it; else this recogniser's own index.
      const semantic = input.meaning
        ? (await input.meaning.read())?.scores
        : options.semantic
          ? await options.semantic.scores(query, snapshot, input.signal).catch(() => undefined)
          : undefined;
      const ranked = withoutAttributeClauses(ranker.rank(input, snapshot, semantic), snapshot, now(), carried.source === 'pending' ? carried.agents : []);
      // The answer to a parked request's question ("订单号是 2024051812345678" when the refund waits for its 订单号):
      // a keyword that is only the name of the awaited key does not start another request.
      if (carried.source === 'pending' && ranked.intents.length > 0 && isFragment(query, input.clauses, carried.agents, snapshot) && ranked.intents.every((match) => namesAwaitedKey(match, carried.agents, snapshot))) {
        const intents = carried.agents.map((agentId) => ({ agentId, score: 0.5 }));
        return business(snapshot, language, intents, 'medium', `values for the pending request: ${carried.agents.join(', ')}`, merge(previous, text, language));
      }
      const followUp = readFollowUp(query, carried.agents, ranked.intents, snapshot);
      if (followUp) {
        const intents = followUp.agents.map((agentId) => ({ agentId, score: 0.5 }));
        return business(snapshot, language, intents, 'medium', followUp.reason, merge(previous, text, language));
      }
      if (ranked.intents.length > 0) {
        const intents = ranked.intents.map(({ agentId, score, clause }) => ({ agentId, score, clause }));
        const completesPending =
          input.pendingAgents.length > 0 && carried.agents.length > 0 && intents.every((intent) => carried.agents.includes(intent.agentId));
        if (completesPending) return business(snapshot, language, intents, ranked.confidence, ranked.reason, merge(previous, text, language));
        // A new request plus, in clauses of their own, the values a parked request was waiting for
        // ("北京，明天，顺便查下天气"): keep the parked request alongside the new one.
        const matchedClauses = new Set(intents.map((intent) => intent.clause).filter((clause): clause is string => clause !== undefined));
        const pendingLeft = carried.source === 'pending' ? carried.agents.filter((agentId) => !intents.some((intent) => intent.agentId === agentId)) : [];
        const fragments = input.clauses.filter((clause) => !matchedClauses.has(clause.text) && ![...matchedClauses].some((matched) => matched.includes(clause.text)));
        if (pendingLeft.length > 0 && fragments.some((clause) => isFragment(clause.text, [clause], pendingLeft, snapshot))) {
          const withPending = [...intents, ...pendingLeft.map((agentId) => ({ agentId, score: 0.5 }))];
          return business(snapshot, language, withPending, 'medium', `${ranked.reason}; values for the pending request: ${pendingLeft.join(', ')}`, merge(previous, text, language));
        }
        // One request that only similarity routed, on a shortlist that does not back it: ask which agent is meant.
        // On a registry of close neighbours, the route goes to the card the shortlist ranks first.
        if (intents.length === 1 && isSimilarityOnly(ranked.intents[0]!) && input.pendingAgents.length === 0) {
          const asked = clarifyOrNot(input, snapshot, language, text, ranked.intents[0]!.agentId);
          if (typeof asked === 'object' && 'agentId' in asked) {
            const reason = `${ranked.reason}; the shortlist ranks ${asked.agentId} first`;
            return { ...business(snapshot, language, [{ ...intents[0]!, agentId: asked.agentId }], 'low', reason, text), asTyped: true };
          }
          if (asked && asked !== 'nothing') return asked;
        }
        // "那边天气怎么样": a new service, but its place comes from the previous turn.
        if (previous && refersToPreviousTurn(query)) return business(snapshot, language, intents, ranked.confidence, ranked.reason, merge(previous, text, language));
        const routedResult: IntentResult = { ...business(snapshot, language, intents, ranked.confidence, ranked.reason, text), asTyped: true };
        // "I need a day off next Friday and also my laptop is broken": a part no card took is asked about, not dropped.
        const placed = input.clauses.length > 1 && input.pendingAgents.length === 0 && intents.every((intent) => intent.clause !== undefined);
        if (!placed) return routedResult;
        const { askAbout, unplaced } = unplacedParts(input, fragments, intents, snapshot, language, classifier);
        if (!askAbout && unplaced.length === 0) return routedResult;
        const reason = [routedResult.reason, ...(askAbout ? [`asking about "${askAbout.query}"`] : []), ...unplaced.map((part) => `not placed: "${part}"`)].join('; ');
        return { ...routedResult, ...(askAbout ? { askAbout } : {}), ...(unplaced.length > 0 ? { unplaced } : {}), reason };
      }

      if (carried.agents.length > 0 && isFragment(query, input.clauses, carried.agents, snapshot)) {
        const intents = carried.agents.map((agentId) => ({ agentId, score: 0.5 }));
        const reason = `fragment completing the ${carried.source === 'pending' ? 'pending' : 'previous'} request: ${carried.agents.join(', ')}`;
        return business(snapshot, language, intents, 'medium', reason, merge(previous, text, language));
      }

      // "地址呢？", "and the day after?": no service named, so the previous request goes on.
      if (carried.agents.length > 0 && isFollowUp(query) && !classifier.findSmallTalk(query)) {
        const intents = carried.agents.map((agentId) => ({ agentId, score: 0.5 }));
        return business(snapshot, language, intents, 'medium', `follow-up of the previous request: ${carried.agents.join(', ')}`, merge(previous, text, language));
      }

      const smallTalk = classifier.findSmallTalk(query);
      if (smallTalk) return simple(smallTalk.kind, snapshot, text, language, `${smallTalk.kind}: "${smallTalk.phrase}"`, 'high');
      // Nothing routed, but the request is near some agents: ask rather than answer "out of scope".
      const asked = clarifyOrNot(input, snapshot, language, text, undefined);
      return asked && asked !== 'nothing' && 'kind' in asked ? asked : simple('out_of_scope', snapshot, text, language, ranked.reason, 'medium');
    },
  };

  /**
   * A clarification turn when the shortlist says to ask (`clarification.ts`); `nothing`: out of scope; `agentId`:
   * route to that card instead; undefined: keep the route.
   */
  function clarifyOrNot(query: RankText, snapshot: RegistrySnapshot, language: Language, text: string, routed: string | undefined): IntentResult | 'nothing' | { agentId: string } | undefined {
    if (!clarify || !ranker.shortlist) return undefined;
    const decision = decideClarification(ranker.shortlist(query, snapshot, MAX_CLARIFICATION_OPTIONS), routed, clarify);
    if ('nothing' in decision) return 'nothing';
    if ('route' in decision) return decision.agentId !== undefined && snapshot.byId.get(decision.agentId)?.enabled === true ? { agentId: decision.agentId } : undefined;
    const clarification = buildClarification(decision.offer, snapshot, language);
    if (!clarification) return undefined;
    const question = clarificationQuestionText(clarification.options.map((option) => option.label), language);
    return {
      kind: 'simple',
      simpleKind: 'clarify',
      intents: [],
      confidence: 'low',
      reason: `${routed ? `weak evidence for ${routed}` : 'no agent routed'}; asking between ${decision.offer.join(', ')}`,
      rewrittenQuery: text,
      userFriendlyMessage: question,
      answer: question,
      clarification,
    };
  }

  /**
   * The parts of a message with routed requests that no card took and that may be requests of their own: longer
   * than a fragment's residue, no value of the routed requests, no small talk. The first one the shortlist would
   * ask about on its own (`decideClarification` offers options, or backs one card the ranker did not route) is
   * asked about (`askAbout`), unless the card it is nearest to was routed this turn (then it is part of that
   * request). A part that starts a request of its own after the first ("…，另外我想申请下周一的年假", "… and also
   * …": `splitRequests`) in which nothing was routed is named in the answer as not handled (`unplaced`), never
   * dropped in silence; a part that goes on with a routed request ("…, as soon as possible please") is not.
   */
  function unplacedParts(
    message: RankText,
    parts: readonly Clause[],
    intents: readonly RankedIntent[],
    snapshot: RegistrySnapshot,
    language: Language,
    classifier: ReturnType<typeof classifierFor>,
  ): { askAbout?: IntentResult['askAbout']; unplaced: string[] } {
    const unplaced: string[] = [];
    let askAbout: IntentResult['askAbout'];
    if (!clarify || !ranker.shortlist || parts.length === 0) return { unplaced };
    const routed = [...new Set(intents.map((intent) => intent.agentId))];
    const keys = routed.flatMap((agentId) => snapshot.byId.get(agentId)?.requiredKeys ?? []);
    const today = now();
    let requests: Clause[] | undefined;
    // A request after the first (its opening may be the context of the next: "we're out of sugar, note it …").
    const startsUnroutedRequest = (part: Clause) => {
      requests ??= splitRequests(message.normalizedQuery, message.clauses);
      const index = requests.findIndex((candidate) => candidate.start === part.start);
      const request = requests[index];
      return index > 0 && request !== undefined && !intents.some((intent) => intent.clause !== undefined && request.text.includes(intent.clause));
    };
    for (const part of parts) {
      // No longer than what a fragment may hold besides its values ("明天入住", "tomorrow"): not a request of its own.
      const units = residualUnits(part.text);
      if (units.han + units.words <= maxFragmentResidue) continue;
      if (readAttributeClause(part.text, keys, today) !== undefined) continue;
      // Values with a few words around them are the routed requests' ("电话13812345678"), unless the part starts a
      // request of its own after 再, 另外, "also" … ("再给13812345678充50元": a top-up, whatever number it holds).
      const ownRequest = startsUnroutedRequest(part);
      if (!ownRequest && isFragment(part.text, [part], routed, snapshot)) continue;
      if (classifier.findSmallTalk(part.text) || classifier.findOverride(part.text)) continue;
      const alone = { normalizedQuery: part.text, clauses: [{ text: part.text, start: 0 }] };
      const decision = askAbout ? undefined : decideClarification(ranker.shortlist(alone, snapshot, MAX_CLARIFICATION_OPTIONS), undefined, clarify);
      let offer = !decision ? [] : 'offer' in decision ? decision.offer : 'route' in decision && decision.agentId !== undefined ? [decision.agentId] : [];
      // A request of its own the shortlist leaves open but the ranker routes when it stands alone
      // ("给13812345678充50元" → the top-up): asked about with that one option rather than run or dropped.
      if (decision && offer.length === 0 && ownRequest) offer = ranker.rank(alone, snapshot).intents.slice(0, 1).map((match) => match.agentId);
      // Nearest to a card already routed this turn ("帮我订一家上海的酒店，后天入住"): part of that request.
      if (offer.length > 0 && routed.includes(offer[0]!)) continue;
      const clarification = offer.length > 0 ? buildClarification(offer, snapshot, language) : undefined;
      if (clarification) askAbout = { query: part.text, clarification };
      else if (ownRequest) unplaced.push(part.text);
    }
    return { ...(askAbout ? { askAbout } : {}), unplaced };
  }

  /**
   * A short follow-up that no keyword or owned value routes (similarity alone may have picked a card):
   * - with a place reference ("那边冷吗"), the rest of it in words only another card uses → that card;
   * - comparing with, or asking for alternatives to, the previous results ("有没有更便宜的"), with no word
   *   left that only another card uses → the carried agents, whatever the similarity says.
   */
  function readFollowUp(query: string, agents: readonly string[], matches: readonly AgentMatch[], snapshot: RegistrySnapshot): { agents: string[]; reason: string } | undefined {
    if (agents.length === 0 || !matches.every(isSimilarityOnly)) return undefined;
    if (refersToPreviousTurn(query) && isFollowUp(query)) {
      const owners = [...ownership.ownersOf(withoutPlaceReference(query), snapshot)];
      if (owners.length === 1 && !agents.includes(owners[0]!)) return { agents: owners, reason: `follow-up about the previous turn's place in ${owners[0]}'s words` };
      return undefined;
    }
    const rest = withoutComparison(query);
    if (rest === undefined) return undefined;
    const others = [...ownership.ownersOf(rest, snapshot)].filter((agentId) => !agents.includes(agentId));
    if (others.length > 0) return undefined;
    return { agents: [...agents], reason: `comparison with the previous results: ${agents.join(', ')}` };
  }

  /** Whether `query` (the message, or one of its clauses, with its clauses from the reading) only gives values of `agentIds`' keys. */
  function isFragment(query: string, clauses: readonly Clause[], agentIds: readonly string[], snapshot: RegistrySnapshot): boolean {
    const specs = agentIds.flatMap((agentId) => snapshot.byId.get(agentId)?.requiredKeys ?? []);
    const today = now();
    // Every clause only gives one of their keys ("订单号改成 B2002，原因是发错货"): a fragment, however long.
    if (clauses.length > 0 && clauses.every((clause) => readAttributeClause(clause.text, specs, today) !== undefined)) return true;
    const raws = specs
      .filter((spec) => spec.extract.type !== 'text')
      .map((spec) => extractOne(query, spec.extract, today)?.raw ?? String(readAsAnswer(query, spec, today) ?? ''))
      .filter((raw) => raw.length > 0);
    if (raws.length === 0) return false;
    let rest = query;
    for (const raw of raws.sort((a, b) => b.length - a.length)) rest = rest.split(raw).join(' ');
    // A reply that names the keys it answers ("check-in city: Shanghai", as a form sends it) is still a fragment:
    // the keys' own descriptions, in any language of the registry, are not residue.
    const labels = specs.flatMap((spec) => [spec.description, ...Object.values(spec.descriptions ?? {})]).filter((label) => label.trim().length > 0);
    for (const label of [...new Set(labels)].sort((a, b) => b.length - a.length)) rest = rest.split(label).join(' ');
    const residual = residualUnits(rest);
    return residual.han + residual.words <= maxFragmentResidue;
  }
}

/**
 * The ranking without matches whose clause holds no request of its own and only gives a value for a request
 * beside it, or for a parked one (`routing/attribute-clause.ts`): in "我要退款，订单 A1001" the clause "订单 A1001"
 * is the refund's order number, not an order lookup, whatever the order lookup's examples look like. The
 * clause then joins the request next to it (or answers the parked one), whether or not that request has the
 * key. A clause that only names a key of the very agent it matched, with no other request beside it, stays
 * that agent's request.
 */
function withoutAttributeClauses(ranked: RankResult, snapshot: RegistrySnapshot, today: Date, parked: readonly string[]): RankResult {
  if (ranked.intents.length === 0 || (ranked.intents.length < 2 && parked.length === 0)) return ranked;
  const keysOf = (agentId: string) => snapshot.byId.get(agentId)?.requiredKeys ?? [];
  const everyKey = [...new Set([...ranked.intents.map((match) => match.agentId), ...parked])].flatMap(keysOf);
  const holdsRequest = (match: AgentMatch) => !match.clause || readAttributeClause(match.clause, everyKey, today) === undefined;
  const anchors = new Set([...parked, ...ranked.intents.filter(holdsRequest).map((match) => match.agentId)]);
  const intents = ranked.intents.filter(
    (match) => holdsRequest(match) || ![...anchors].some((agentId) => agentId !== match.agentId),
  );
  return intents.length === ranked.intents.length ? ranked : { ...ranked, intents };
}

/**
 * True when a match is no request of its own beside parked `agentIds`: it is one of them, or every keyword it
 * was made on is part of the name of a key they wait for ("订单号"). Similarity is a request ("… 到哪了").
 */
function namesAwaitedKey(match: AgentMatch, agentIds: readonly string[], snapshot: RegistrySnapshot): boolean {
  if (agentIds.includes(match.agentId)) return true;
  if (match.keywords.length === 0) return false;
  const labels = agentIds
    .flatMap((agentId) => snapshot.byId.get(agentId)?.requiredKeys ?? [])
    .flatMap((spec) => [spec.description, ...Object.values(spec.descriptions ?? {})])
    .map((label) => label.toLowerCase());
  return match.keywords.every((keyword) => labels.some((label) => label.includes(keyword.toLowerCase())));
}

/**
 * True for a match made on similarity alone: no keyword, no value only that card asks for. The ranker
 * scores those 0.7 × similarity (below 0.7); keyword, value and place matches score 0.7 and above.
 */
function isSimilarityOnly(match: AgentMatch): boolean {
  return match.keywords.length === 0 && match.value === undefined && match.score < 0.7;
}

function carriedAgents(input: IntentInput, snapshot: RegistrySnapshot): { agents: string[]; source: 'pending' | 'history' } {
  const enabled = (ids: readonly string[]) => [...new Set(ids)].filter((agentId) => snapshot.byId.get(agentId)?.enabled === true);
  const pending = enabled(input.pendingAgents);
  if (pending.length > 0) return { agents: pending, source: 'pending' };
  const previous = input.history[input.history.length - 1];
  return { agents: previous ? enabled(previous.agents) : [], source: 'history' };
}

function merge(previous: MemoryTurn | undefined, query: string, language: Language): string {
  const base = (previous?.rewrittenQuery || previous?.query || '').trim();
  if (base.length === 0) return query;
  const separator = language === 'zh' ? '，' : ', ';
  return `${base.replace(/[，,。.;；\s]+$/u, '')}${separator}${query}`;
}

function business(
  snapshot: RegistrySnapshot,
  language: Language,
  intents: RankedIntent[],
  confidence: IntentResult['confidence'],
  reason: string,
  rewrittenQuery: string,
): IntentResult {
  // The message names the services in the order the user mentioned them.
  const cards = orderByMention(intents, rewrittenQuery).flatMap((intent) => {
    const found = snapshot.byId.get(intent.agentId);
    return found ? [found] : [];
  });
  return { kind: 'business', intents, confidence, reason, rewrittenQuery, userFriendlyMessage: composeIntentMessage(cards, language) };
}

function simple(
  simpleKind: NonNullable<IntentResult['simpleKind']>,
  snapshot: RegistrySnapshot,
  query: string,
  language: Language,
  reason: string,
  confidence: IntentResult['confidence'],
): IntentResult {
  return {
    kind: 'simple',
    simpleKind,
    intents: [],
    confidence,
    reason,
    rewrittenQuery: query,
    userFriendlyMessage: composeDirectAnswer(simpleKind, snapshot, language, query),
  };
}

function assertInput(input: IntentInput): void {
  if (input === null || typeof input !== 'object') throw new TypeError('intent input must be an object');
  if (typeof input.query !== 'string') throw new TypeError('intent input: query must be a string');
  if (typeof input.normalizedQuery !== 'string') throw new TypeError('intent input: normalizedQuery must be a string (see understanding/query-reading.ts)');
  if (input.language !== 'zh' && input.language !== 'en') throw new TypeError('intent input: language must be "zh" or "en"');
  if (!input.snapshot || !Array.isArray(input.snapshot.enabledAgents) || !(input.snapshot.byId instanceof Map)) {
    throw new TypeError('intent input: snapshot must be a registry snapshot');
  }
  if (!Array.isArray(input.history)) throw new TypeError('intent input: history must be an array');
  if (!Array.isArray(input.pendingAgents)) throw new TypeError('intent input: pendingAgents must be an array');
}
