/**
 * Which words of a multi-request query each agent's semantic keys are read
 * from. Extracting every agent's keys from the whole query lets one request's
 * values leak into another ("帮我订个酒店，再查一下明天从北京到上海的机票" would
 * book the hotel in 上海 for tomorrow), so values are attributed by clause:
 *
 * - An agent recognised in a clause reads its keys from its group: that clause,
 *   plus the clauses of this turn that name no request (bare values such as
 *   "明天入住"), each attached to the nearest request clause before it (or, when
 *   there is none, after it). Within a group the latest mention wins.
 * - Two full requests joined by 和 / and inside one clause are two clauses:
 *   when several agents were recognised in the same clause, it is cut at the
 *   joining word between their request words ("查询北京明天的天气和明天从北京到
 *   上海的航班"), and each agent owns the part with its own request word.
 * - Coordination shares values: a clause that is only a request noun ("hotels",
 *   "酒店") joined by and / 和 / 、 to a neighbouring clause reads that clause's
 *   group too ("hotels and weather in Beijing"), as "北京的酒店和天气" does in one
 *   clause.
 * - Values never flow backwards into an earlier clause, but for a clause said
 *   after every request that gives the last one a key the earlier ones need too
 *   ("查一下话费，再充10G流量，手机号13912345678": the number is for both).
 * - A later clause that names no value of its own for its agent inherits, key by
 *   key, the value the clause right before it has for a key of the same name —
 *   it continues that subject ("查一下订单 A1001 的状态，还有物流到哪了").
 *   An agent with `side_effects` never inherits.
 * - An agent without a clause of its own reads the clauses that are no other
 *   request's: a parked request only those of this turn (the user's answer; its
 *   earlier values are in the parked task), a request carried from the previous
 *   turn ("上海呢") the whole rewritten query.
 * A key with no value attributed this way stays missing and is asked for.
 */
import type { AgentCard, SemanticKeySpec } from '../registry/index.js';
import { requestWordIn, requestWordOf, separatorBetween, type Clause, type ReadClause, type ReadText, type RequestWord } from '../understanding/index.js';
import { type ExtractionResult, extractKeys, extractOne, termsOf } from '../text/index.js';
import type { RankedIntent } from './types.js';

/** What `attributeClauseValues` needs. */
export interface ClauseValuesRequest {
  /** The (rewritten) query the plan is made from, read once (its normal form and clauses: `planning/plan-texts.ts`). */
  text: ReadText;
  /** The normal form of what the user typed this turn; clauses before it in `text` (earlier turns) belong to no clause of this turn. */
  turnText?: string;
  /** The recognised intents; `clause` is the part of the query that named the agent. */
  intents: readonly Pick<RankedIntent, 'agentId' | 'clause'>[];
  /** The agents to attribute values to. */
  cards: readonly AgentCard[];
  /** Agents parked last turn waiting for the user's answer. */
  pendingAgents?: readonly string[];
  now: Date;
}

/** The values one agent may use, and the words they come from. */
export interface AgentClauseValues {
  /** The agent's own part of the query (its group), or every clause no other request owns, as the user wrote it. */
  text: string;
  /** `clause`: recognised in a clause of this turn; `answer`: a parked request reading this turn's answer; `open`: carried from the last turn. */
  scope: 'clause' | 'answer' | 'open';
  /** Required keys read from `text`, plus keys inherited from the clause before. */
  extraction: ExtractionResult;
  /** Keys filled from the clause before (a continued subject). */
  inherited: Record<string, string | number>;
}

const COORDINATION = new Set(['and', '&', '和', '与', '及', '以及', '、', 'plus', 'as well as']);

/** Attributes the required-key values of each card (see the file header). */
export function attributeClauseValues(request: ClauseValuesRequest): Map<string, AgentClauseValues> {
  // Clauses are found in the normal form; the words handed on keep the user's own punctuation when positions allow.
  const { normal: text, written } = request.text;
  const turnText = request.turnText?.trim() ?? '';
  const turnStart = turnText.length > 0 ? Math.max(0, text.lastIndexOf(turnText)) : 0;
  const cardsById = new Map(request.cards.map((card) => [card.id, card]));
  const withClause = request.intents.filter((intent) => cardsById.has(intent.agentId) && intent.clause);
  const intents = withClause.filter((intent, index) => withClause.findIndex((other) => other.agentId === intent.agentId) === index);
  // Two full requests joined by 和 / and in one clause are two clauses, each request owning its own.
  const { clauses, placed } = splitSharedClauses(text, [...request.text.clauses], intents, turnStart);
  const firstTurnClause = Math.max(0, clauses.findIndex((clause) => clause.start >= turnStart));

  // Owners of each clause: agents recognised in exactly that clause first, then agents whose clause spans several.
  const owned = new Map<string, number[]>(placed);
  const owners: Set<string>[] = clauses.map(() => new Set());
  const spanning: [string, number[]][] = [];
  for (const intent of intents) {
    if (owned.has(intent.agentId)) continue;
    const spanned = clausesOf(text, intent.clause!.trim(), clauses, turnStart);
    if (spanned.length === 1) owned.set(intent.agentId, spanned);
    else if (spanned.length > 1) spanning.push([intent.agentId, spanned]);
  }
  for (const [agentId, indexes] of owned) for (const index of indexes) owners[index]!.add(agentId);
  const singlyOwned = new Set(owners.flatMap((set, index) => (set.size > 0 ? [index] : [])));
  for (const [agentId, spanned] of spanning) {
    if (owned.has(agentId)) continue;
    const free = spanned.filter((index) => !singlyOwned.has(index));
    const indexes = free.length > 0 ? free : spanned;
    owned.set(agentId, indexes);
    for (const index of indexes) owners[index]!.add(agentId);
  }

  // Clauses of this turn that name no request ("明天入住", "住3晚"; not a lone "我") join the nearest request clause before them (else after).
  const attachedTo = new Map<number, number>();
  const specs = request.cards.flatMap((card) => card.requiredKeys);
  const saysSomething = (clause: Clause) =>
    termsOf(clause.text).length > 0 || /\d/.test(clause.text) || specs.some((spec) => extractOne(clause.text, spec.extract, request.now) !== null);
  for (let index = firstTurnClause; index < clauses.length; index++) {
    if (owners[index]!.size > 0 || !saysSomething(clauses[index]!)) continue;
    let anchor = -1;
    for (let before = index - 1; before >= firstTurnClause && anchor < 0; before--) if (owners[before]!.size > 0) anchor = before;
    for (let after = index + 1; after < clauses.length && anchor < 0; after++) if (owners[after]!.size > 0) anchor = after;
    if (anchor >= 0) attachedTo.set(index, anchor);
  }
  const groupOf = (anchor: number) => [anchor, ...[...attachedTo].filter(([, target]) => target === anchor).map(([index]) => index)];

  const result = new Map<string, AgentClauseValues>();
  const clauseAgents = [...owned.entries()].sort((left, right) => Math.min(...left[1]) - Math.min(...right[1]));
  for (const [agentId, indexes] of clauseAgents) {
    const card = cardsById.get(agentId)!;
    const group = new Set<number>();
    for (const index of indexes) {
      for (const member of groupOf(index)) group.add(member);
      if (!isBareRequest(clauses[index]!, owners[index]!, cardsById)) continue;
      for (const neighbour of [index - 1, index + 1]) {
        if (neighbour < firstTurnClause || neighbour >= clauses.length || owners[neighbour]!.size === 0) continue;
        const [left, right] = neighbour < index ? [clauses[neighbour]!, clauses[index]!] : [clauses[index]!, clauses[neighbour]!];
        if (COORDINATION.has(separatorBetween(text, left, right).trim().toLowerCase())) for (const member of groupOf(neighbour)) group.add(member);
      }
    }
    const ownText = joinClauses(written, clauses, [...group]);
    const extraction = withoutRequestWords(extractKeys(ownText, card.requiredKeys, request.now), ownText, card.requiredKeys, request.cards, request.now);
    // An attribute clause that names the key before its value ("订单号是 A1001") gives that key.
    for (const spec of card.requiredKeys) {
      if (spec.key in extraction.values || extraction.invalid.some((item) => item.key === spec.key)) continue;
      for (const index of [...group].sort((a, b) => a - b)) {
        const answered = readAsAnswer(clauses[index]!.text, spec, request.now);
        if (answered === undefined) continue;
        extraction.values[spec.key] = answered;
        break;
      }
    }
    // A free-text key named by its label in a clause of the group ("原因是临时有事") takes the words after the label, not the whole group.
    for (const index of [...group].sort((a, b) => a - b)) {
      const clause = clauses[index]!;
      for (const spec of card.requiredKeys) {
        const labelled = readLabelledText(written.slice(clause.start, clause.start + clause.text.length), spec);
        if (labelled !== undefined) extraction.values[spec.key] = labelled;
      }
    }
    const inherited: Record<string, string | number> = {};
    const first = Math.min(...indexes);
    const namesNothing = Object.keys(extraction.values).length === 0 && extraction.invalid.length === 0;
    if (!card.sideEffects && namesNothing && first - 1 >= firstTurnClause) {
      const before = first - 1;
      const source = owners[before]!.size > 0 ? before : attachedTo.get(before);
      for (const previousId of source === undefined ? [] : owners[source]!) {
        const previous = result.get(previousId);
        if (previousId === agentId || !previous) continue;
        for (const spec of card.requiredKeys) {
          const value = previous.extraction.values[spec.key];
          if (value === undefined || spec.key in inherited) continue;
          if (previous.inherited[spec.key] !== value && !fitsSpec(spec, value, previous.text, request.now)) continue;
          inherited[spec.key] = value;
        }
      }
    }
    result.set(agentId, {
      text: ownText,
      scope: 'clause',
      extraction: { values: { ...extraction.values, ...inherited }, invalid: extraction.invalid },
      inherited,
    });
  }

  shareTrailingValues(result, clauseAgents, attachedTo, clauses, written, cardsById, firstTurnClause, request.now);

  // Agents without a clause of their own read the clauses no request owns (a parked one: of this turn only).
  const open = clauses.flatMap((_, index) => (owners[index]!.size === 0 ? [index] : []));
  const openText = owned.size === 0 ? written : joinClauses(written, clauses, open);
  const answerText = joinClauses(written, clauses, open.filter((index) => index >= firstTurnClause));
  const pending = new Set(request.pendingAgents ?? []);
  for (const card of request.cards) {
    if (result.has(card.id)) continue;
    const [scope, own] = pending.has(card.id) ? (['answer', answerText] as const) : (['open', openText] as const);
    const extraction = withoutRequestWords(extractKeys(own, card.requiredKeys, request.now), own, card.requiredKeys, request.cards, request.now);
    // A bare answer to the parked request's question ("A1001" when it asked for 订单号) is read as the answer to that key.
    if (scope === 'answer') for (const spec of card.requiredKeys) if (!(spec.key in extraction.values) && !extraction.invalid.some((item) => item.key === spec.key)) {
      const answered = readAsAnswer(own, spec, request.now);
      if (answered !== undefined) extraction.values[spec.key] = answered;
    }
    for (const index of scope === 'answer' ? open.filter((at) => at >= firstTurnClause) : owned.size === 0 ? clauses.map((_, at) => at) : open) {
      const clause = clauses[index]!;
      for (const spec of card.requiredKeys) {
        const labelled = readLabelledText(written.slice(clause.start, clause.start + clause.text.length), spec);
        if (labelled !== undefined) extraction.values[spec.key] = labelled;
      }
    }
    result.set(card.id, { text: own, scope, extraction, inherited: {} });
  }
  return result;
}

/**
 * A value said once after every request of the turn ("查一下话费，再充10G流量，手机号13912345678", "…, my number is
 * 13912345678") is for each of those requests that needs a key of the same name and has no value for it, not only
 * for the last one: the last request took it for that key, and the others read the same key from the same words.
 * A value inside one request's own clause stays that request's.
 */
function shareTrailingValues(
  result: Map<string, AgentClauseValues>,
  clauseAgents: readonly [string, number[]][],
  attachedTo: ReadonlyMap<number, number>,
  clauses: readonly Clause[],
  written: string,
  cardsById: ReadonlyMap<string, AgentCard>,
  firstTurnClause: number,
  now: Date,
): void {
  const ofTurn = clauseAgents.filter(([, indexes]) => indexes.some((index) => index >= firstTurnClause));
  if (ofTurn.length < 2) return;
  const lastRequest = Math.max(...ofTurn.flatMap(([, indexes]) => indexes));
  for (const [index, anchor] of attachedTo) {
    if (index <= lastRequest || anchor !== lastRequest) continue;
    const clause = clauses[index]!;
    const words = written.slice(clause.start, clause.start + clause.text.length);
    const takers = ofTurn.filter(([, indexes]) => indexes.includes(anchor)).map(([agentId]) => result.get(agentId)!);
    for (const [agentId] of ofTurn) {
      const own = result.get(agentId)!;
      if (takers.includes(own)) continue;
      for (const spec of cardsById.get(agentId)!.requiredKeys) {
        if (spec.key in own.extraction.values || own.extraction.invalid.some((item) => item.key === spec.key)) continue;
        const value = extractKeys(words, [spec], now).values[spec.key];
        if (value !== undefined && takers.some((taker) => taker.extraction.values[spec.key] === value)) own.extraction.values[spec.key] = value;
      }
    }
  }
}

/**
 * The extraction less the off-list values that hold a request word of one of the agents ("预约" asks for a
 * booking, "话费套餐" names the plan service): the words that name a request are never a value the user gave.
 * The key is read again without those words, so a name off the list said before them still counts.
 */
function withoutRequestWords(extraction: ExtractionResult, text: string, specs: readonly SemanticKeySpec[], cards: readonly AgentCard[], now: Date): ExtractionResult {
  const namesRequest = (raw: string) => raw.trim().length > 0 && cards.some((card) => requestWordIn(raw, card) !== undefined);
  if (!extraction.invalid.some((item) => namesRequest(item.raw))) return extraction;
  const invalid: ExtractionResult['invalid'] = [];
  for (const item of extraction.invalid) {
    const spec = specs.find((candidate) => candidate.key === item.key);
    let [raw, rest] = [item.raw, text];
    for (let attempt = 0; spec && namesRequest(raw) && attempt < MAX_REREADS; attempt++) {
      rest = rest.split(raw).join('#'.repeat(raw.length));
      const again = extractKeys(rest, [spec], now).invalid[0];
      raw = again?.raw ?? '';
      if (again && raw.length > 0 && !namesRequest(raw)) invalid.push(again);
    }
    if (!namesRequest(item.raw)) invalid.push(item);
  }
  return { values: extraction.values, invalid };
}

/** How many times a key is read again without a request word that stood as its off-list value. */
const MAX_REREADS = 3;

/**
 * A pattern key's value from a message that only answers the question for it:
 * the answer read after the key's own name ("订单号 A1001" for "A1001"), since
 * a pattern often needs its label before a short id. Other key types read a
 * bare answer already.
 */
export function readAsAnswer(text: string, spec: SemanticKeySpec, now: Date): string | number | undefined {
  if (spec.extract.type !== 'pattern' || text.trim().length === 0) return undefined;
  for (const label of [spec.description, ...Object.values(spec.descriptions ?? {})]) {
    if (!label?.trim()) continue;
    // "订单号是 A1001", "order number is A1001", "订单号改成 B2002": the key's name and a copula (or a correction's words) before the answer.
    const answer = text.trim().replace(new RegExp(`^${escapeRegExp(label.trim())}\\s*(?:是|为|:|：|改成|改为|换成|变成|改到|is\\b|should be\\b|changed? to\\b)\\s*`, 'iu'), '');
    const outcome = extractOne(`${label.trim()} ${answer}`, spec.extract, now);
    if (outcome && 'value' in outcome && text.includes(String(outcome.value))) return outcome.value;
  }
  return undefined;
}

/**
 * A free-text key's value from a clause that starts with the key's label and a copula ("原因是临时有事",
 * "取消原因：出差", "the reason is I am running late"): the words after them. The label may be shortened to
 * its head noun ("原因" for 取消原因, "reason" for cancellation reason). Other key types read their values
 * by their own extraction.
 */
export function readLabelledText(clause: string, spec: SemanticKeySpec): string | undefined {
  if (spec.extract.type !== 'text') return undefined;
  for (const label of labelForms(spec)) {
    const match = new RegExp(`^(?:(?:the|my|our)\\s+)?${escapeRegExp(label)}\\s*(?:是|为|:|：|(?:is|was)(?![A-Za-z]))\\s*(.+)$`, 'iu').exec(clause.trim());
    const value = match?.[1]?.replace(/[。.!！?？;；]+$/u, '').trim();
    if (value) return value;
  }
  return undefined;
}

/** A key's labels, each with its head noun: the last two characters of a Chinese label, the last word of an English one. */
function labelForms(spec: SemanticKeySpec): string[] {
  const forms: string[] = [];
  for (const label of [spec.description, ...Object.values(spec.descriptions ?? {})]) {
    const trimmed = label?.trim() ?? '';
    if (trimmed.length === 0) continue;
    forms.push(trimmed);
    if (/^[\u4e00-\u9fff]{3,}$/u.test(trimmed)) forms.push(trimmed.slice(-2));
    const words = trimmed.split(/\s+/);
    if (words.length > 1 && /^[A-Za-z]{4,}$/.test(words[words.length - 1]!)) forms.push(words[words.length - 1]!);
  }
  return [...new Set(forms)];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Words that join two requests inside one clause ("天气和明天的航班"). */
const JOINING_WORD = /以及|和|跟|与|及|(?<![A-Za-z0-9_])(?:and|plus)(?![A-Za-z0-9_])|&/i;

/**
 * Splits a clause that several agents were recognised in at the joining word
 * between their request words: "查询北京明天的天气和明天从北京到上海的航班" is two
 * requests, each with its own values. Each such agent then owns the part with
 * its request word; a part that is only the request noun ("北京的酒店和天气")
 * still shares its neighbour's values by the coordination rule.
 */
function splitSharedClauses(
  text: string,
  clauses: readonly ReadClause[],
  intents: readonly Pick<RankedIntent, 'agentId' | 'clause'>[],
  turnStart: number,
): { clauses: Clause[]; placed: Map<string, number[]> } {
  const agentsIn = new Map<number, string[]>();
  for (const intent of intents) {
    const spanned = clausesOf(text, intent.clause!.trim(), clauses, turnStart);
    if (spanned.length === 1) agentsIn.set(spanned[0]!, [...(agentsIn.get(spanned[0]!) ?? []), intent.agentId]);
  }
  const result: Clause[] = [];
  const placed = new Map<string, number[]>();
  clauses.forEach((clause, index) => {
    const anchors = (agentsIn.get(index) ?? [])
      .map((agentId) => ({ agentId, word: requestWordOf(clause, agentId) }))
      .filter((anchor): anchor is { agentId: string; word: RequestWord } => anchor.word !== undefined)
      .sort((left, right) => left.word.start - right.word.start);
    const cuts: { start: number; end: number }[] = [];
    for (let position = 1; position < anchors.length; position++) {
      const left = anchors[position - 1]!.word;
      const right = anchors[position]!.word;
      if (right.start < left.end) continue;
      const joining = JOINING_WORD.exec(clause.text.slice(left.end, right.start));
      if (joining) cuts.push({ start: left.end + joining.index, end: left.end + joining.index + joining[0].length });
    }
    const pieces: Clause[] = [];
    let from = 0;
    for (const cut of [...cuts, { start: clause.text.length, end: clause.text.length }]) {
      const raw = clause.text.slice(from, cut.start);
      const trimmed = raw.trim();
      if (trimmed.length > 0) pieces.push({ text: trimmed, start: clause.start + from + raw.indexOf(trimmed) });
      from = cut.end;
    }
    if (cuts.length === 0 || pieces.length !== cuts.length + 1) {
      result.push({ ...clause });
      return;
    }
    const first = result.length;
    result.push(...pieces);
    for (const { agentId, word } of anchors) {
      const at = clause.start + word.start;
      const piece = pieces.findIndex((candidate) => candidate.start <= at && at < candidate.start + candidate.text.length);
      if (piece >= 0) placed.set(agentId, [first + piece]);
    }
  });
  return { clauses: result, placed };
}

/** Indexes of the clauses inside the last occurrence of `clause` in `text` (this turn's, when it is there). */
function clausesOf(text: string, clause: string, clauses: readonly Clause[], turnStart: number): number[] {
  if (clause.length === 0) return [];
  const at = text.lastIndexOf(clause);
  if (at < 0 || (at < turnStart && text.indexOf(clause, turnStart) < 0)) return [];
  const end = at + clause.length;
  return clauses.flatMap((candidate, index) => (candidate.start >= at && candidate.start + candidate.text.length <= end ? [index] : []));
}

/** The clauses' text: runs of neighbouring clauses as the user wrote them, runs joined by "，". */
function joinClauses(text: string, clauses: readonly Clause[], indexes: readonly number[]): string {
  const sorted = [...new Set(indexes)].sort((left, right) => left - right);
  const runs: string[] = [];
  let runStart = -1;
  sorted.forEach((index, position) => {
    if (runStart < 0) runStart = index;
    const next = sorted[position + 1];
    if (next === index + 1) return;
    const first = clauses[runStart]!;
    const last = clauses[index]!;
    runs.push(text.slice(first.start, last.start + last.text.length));
    runStart = -1;
  });
  return runs.join('，');
}

/** A clause that is only the request itself ("hotels", "酒店"): every term is a keyword or the name of an agent it names. */
function isBareRequest(clause: Clause, agents: ReadonlySet<string>, cardsById: ReadonlyMap<string, AgentCard>): boolean {
  const requestTerms = new Set<string>();
  for (const agentId of agents) {
    const card = cardsById.get(agentId);
    for (const phrase of [...(card?.keywords ?? []), card?.name ?? '']) for (const term of termsOf(phrase)) requestTerms.add(term.text);
  }
  const terms = termsOf(clause.text);
  return terms.length > 0 && terms.every((term) => requestTerms.has(term.text));
}

/** The earlier clause's value counts for `spec` when `spec` itself reads that value from the earlier clause's words. */
function fitsSpec(spec: SemanticKeySpec, value: string | number, sourceText: string, now: Date): boolean {
  return extractKeys(sourceText, [spec], now).values[spec.key] === value;
}
