/**
 * Registry lint: things a registry may legally say that quietly change who
 * handles what. Warnings, never errors — `validate` prints them, a reload logs
 * them, `GET /v1/agents` shows them:
 *
 * - two enabled cards whose keywords or examples overlap (the colliding
 *   examples named): requests like those may go to either agent, and a new
 *   card can take over another's traffic;
 * - a card whose examples read like an action with side effects (book, pay,
 *   refund, …) that says nothing about `side_effects`: its tasks would run
 *   without the user's yes (`side_effects: false` says so on purpose);
 * - a `widgets` key that no agent declares (with the nearest key it may mean).
 *
 * Misplaced fields (`retries` on the agent instead of `endpoint.retries`) are
 * schema errors; config-schema.ts says where they belong.
 */
import { closestName } from './config-schema.js';
import type { Findings } from './findings.js';
import type { RawAgent, RawConfig } from './raw-config.js';
import type { ConfigIssue } from './types.js';
import type { YamlSource } from './yaml-source.js';

/** At most this many overlap warnings are listed; the rest are counted in one more line. */
const MAX_OVERLAP_WARNINGS = 20;
/** Two examples collide when this share of their character pairs is common to both (Dice coefficient). */
const COLLIDING_SIMILARITY = 0.8;
/** A character pair seen in more examples than this says nothing about a collision and is not indexed. */
const COMMON_PAIR_LIMIT = 200;

/**
 * A request to act that changes something for the user — book, pay, refund,
 * order, cancel — said as a request ("帮我订…", "book a…"), not a question
 * about one ("我买的那件商品付款了没有", "when do I have to pay…").
 */
const SIDE_EFFECT_REQUESTS = [
  /(^|帮我|给我|替我|请|我要|我想|麻烦你?|可以|能不能)\s*(预订|预定|订(?!单)|下单|购买|买一|支付|付款|退款|申请退款|退货|转账|汇款|充值|取消(订单|预订|预约))/u,
  /^(please |can you |could you |i want to |i'd like to |i need to |help me |go ahead and )?(book|reserve|pay|purchase|buy|refund|transfer|cancel|order|subscribe|top up)\b/iu,
];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
/** Case, width and punctuation folded away: what a reader would call the same text. */
const fold = (text: string): string => text.normalize('NFKC').toLowerCase().replace(/[\s\p{P}\p{S}]+/gu, '');

interface LintedAgent {
  readonly index: number;
  readonly id: string;
  readonly examples: readonly string[];
  readonly keywords: ReadonlyMap<string, string>;
  /** As written: `false` says, on purpose, that the agent changes nothing (the lint then keeps quiet). */
  readonly sideEffects: boolean | undefined;
}

/** Every lint warning of a document that passed the JSON Schema. */
export function lintRegistry(config: RawConfig, source: YamlSource): Findings {
  const agents: LintedAgent[] = [];
  config.agents.forEach((agent: unknown, index) => {
    if (!isRecord(agent) || typeof agent.id !== 'string') return;
    const raw = agent as unknown as RawAgent;
    if (raw.enabled === false) return;
    agents.push({
      index,
      id: raw.id,
      examples: strings(raw.examples),
      keywords: keywordMap(strings(raw.keywords)),
      sideEffects: typeof raw.side_effects === 'boolean' ? raw.side_effects : undefined,
    });
  });
  return { issues: [], warnings: [...overlapWarnings(agents, source), ...sideEffectWarnings(agents, source), ...widgetWarnings(config, source)] };
}

function pairs(text: string): Set<string> {
  const folded = fold(text);
  const found = new Set<string>();
  for (let at = 0; at + 1 < folded.length; at += 1) found.add(folded.slice(at, at + 2));
  if (folded.length === 1) found.add(folded);
  return found;
}

/** Pairs of examples of different agents that read the same, found through an index of character pairs. */
function collidingExamples(agents: readonly OverlapSource[]): Map<string, [string, string][]> {
  const entries = agents.flatMap((agent, agentAt) => agent.examples.map((text) => ({ agentAt, text, pairs: pairs(text) })));
  const index = new Map<string, number[]>();
  entries.forEach((entry, entryAt) => {
    for (const pair of entry.pairs) {
      const list = index.get(pair) ?? [];
      list.push(entryAt);
      index.set(pair, list);
    }
  });
  const found = new Map<string, [string, string][]>();
  entries.forEach((entry, entryAt) => {
    const shared = new Map<number, number>();
    for (const pair of entry.pairs) {
      const list = index.get(pair) ?? [];
      if (list.length > COMMON_PAIR_LIMIT) continue;
      for (const other of list) if (other > entryAt && entries[other]!.agentAt !== entry.agentAt) shared.set(other, (shared.get(other) ?? 0) + 1);
    }
    for (const [other, count] of shared) {
      const otherEntry = entries[other]!;
      const similarity = (2 * count) / (entry.pairs.size + otherEntry.pairs.size);
      if (similarity < COLLIDING_SIMILARITY) continue;
      const [first, second] = entry.agentAt < otherEntry.agentAt ? [entry, otherEntry] : [otherEntry, entry];
      const key = `${first.agentAt}:${second.agentAt}`;
      found.set(key, [...(found.get(key) ?? []), [first.text, second.text]]);
    }
  });
  return found;
}

/** Two enabled agents whose keywords or examples overlap: what the lint warns about. */
export interface AgentOverlap {
  /** The earlier agent (registry order) and the later one, which can take over the earlier one's requests. */
  readonly first: string;
  readonly second: string;
  readonly sharedKeywords: readonly string[];
  /** Colliding examples as [the earlier agent's, the later agent's]. */
  readonly examples: readonly (readonly [string, string])[];
}

interface OverlapSource {
  readonly id: string;
  readonly examples: readonly string[];
  readonly keywords: ReadonlyMap<string, string>;
}

const keywordMap = (keywords: readonly string[]): ReadonlyMap<string, string> =>
  new Map(keywords.map((keyword) => [fold(keyword), keyword] as const).filter(([folded]) => folded !== ''));

/** Every overlapping pair of agents, in registry order, with its shared keywords and colliding examples. */
function findOverlaps(agents: readonly OverlapSource[]): (AgentOverlap & { firstAt: number; secondAt: number })[] {
  const colliding = collidingExamples(agents);
  const found: (AgentOverlap & { firstAt: number; secondAt: number })[] = [];
  for (let first = 0; first < agents.length; first += 1) {
    for (let second = first + 1; second < agents.length; second += 1) {
      const [left, right] = [agents[first]!, agents[second]!];
      const sharedKeywords = [...right.keywords].filter(([folded]) => left.keywords.has(folded)).map(([, keyword]) => keyword);
      const examples = colliding.get(`${first}:${second}`) ?? [];
      if (sharedKeywords.length === 0 && examples.length === 0) continue;
      found.push({ first: left.id, second: right.id, firstAt: first, secondAt: second, sharedKeywords, examples });
    }
  }
  return found;
}

/** The overlaps among a snapshot's enabled cards (what `validate` replays the colliding examples of). */
export function agentOverlaps(cards: readonly { id: string; examples: readonly string[]; keywords: readonly string[] }[]): AgentOverlap[] {
  return findOverlaps(cards.map((card) => ({ id: card.id, examples: card.examples, keywords: keywordMap(card.keywords) }))).map(
    ({ first, second, sharedKeywords, examples }) => ({ first, second, sharedKeywords, examples }),
  );
}

function overlapWarnings(agents: readonly LintedAgent[], source: YamlSource): ConfigIssue[] {
  const overlaps = findOverlaps(agents);
  const warnings: ConfigIssue[] = [];
  for (const overlap of overlaps.slice(0, MAX_OVERLAP_WARNINGS)) {
    const [left, right] = [agents[overlap.firstAt]!, agents[overlap.secondAt]!];
    const { sharedKeywords, examples } = overlap;
    const parts = [
      ...(sharedKeywords.length > 0 ? [`shared keywords ${sharedKeywords.map((keyword) => JSON.stringify(keyword)).join(', ')}`] : []),
      ...(examples.length > 0
        ? [`colliding examples ${examples.slice(0, 3).map(([mine, theirs]) => (mine === theirs ? JSON.stringify(theirs) : `${JSON.stringify(theirs)} ~ ${JSON.stringify(mine)}`)).join(', ')}${examples.length > 3 ? ` and ${examples.length - 3} more` : ''}`]
        : []),
    ];
    const pointer = `/agents/${right.index}/${examples.length > 0 ? 'examples' : 'keywords'}`;
    warnings.push(
      source.issueAt(
        pointer,
        `agent "${right.id}" overlaps "${left.id}" (/agents/${left.index}): ${parts.join('; ')}. Requests like these may go to either agent, and the later card can take over the earlier one's requests: make their examples and keywords tell them apart, or disable one (\`switchboard validate\` shows where the colliding examples route; \`switchboard replay --config FILE\` shows which recorded turns would move)`,
      ),
    );
  }
  const unlisted = overlaps.length - MAX_OVERLAP_WARNINGS;
  if (unlisted > 0) warnings.push(source.issueAt('/agents', `${unlisted} more overlapping pairs of agents are not listed`));
  return warnings;
}

function sideEffectWarnings(agents: readonly LintedAgent[], source: YamlSource): ConfigIssue[] {
  return agents.flatMap((agent) => {
    if (agent.sideEffects !== undefined) return [];
    const actions = agent.examples.filter((example) => SIDE_EFFECT_REQUESTS.some((words) => words.test(example.trim())));
    if (actions.length === 0) return [];
    const shown = actions.slice(0, 3).map((example) => JSON.stringify(example)).join(', ');
    return [
      source.issueAt(
        `/agents/${agent.index}/examples`,
        `agent "${agent.id}" has examples that read like an action with side effects (${shown}${actions.length > 3 ? ` and ${actions.length - 3} more` : ''}) but no "side_effects: true": its tasks run without asking the user to confirm. Add side_effects: true if it books, pays or changes anything (side_effects: false says it does not)`,
      ),
    ];
  });
}

function widgetWarnings(config: RawConfig, source: YamlSource): ConfigIssue[] {
  const declared = new Set<string>();
  for (const agent of config.agents as unknown[]) {
    if (!isRecord(agent) || !Array.isArray(agent.required_semantic_keys)) continue;
    for (const key of agent.required_semantic_keys as unknown[]) if (isRecord(key) && typeof key.key === 'string') declared.add(key.key);
  }
  const known = [...declared];
  const warnings: ConfigIssue[] = [];
  for (const field of ['widgets', 'fe_wigdets_suggestion'] as const) {
    const dictionary = (config as unknown as Record<string, unknown>)[field];
    if (!isRecord(dictionary)) continue;
    for (const key of Object.keys(dictionary)) {
      if (declared.has(key)) continue;
      const suggestion = closestName(key, known);
      warnings.push(
        source.issueAt(
          `/${field}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`,
          `${field} key "${key}" is not a required_semantic_keys key of any agent${suggestion ? ` (did you mean "${suggestion}"?)` : ''}: its widget is never suggested`,
          { key: true },
        ),
      );
    }
  }
  return warnings;
}
