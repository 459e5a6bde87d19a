/**
 * The semantic cache of hot questions (docs/api.md#environment, the third memory
 * layer): a business turn whose resolved plan matches one answered a moment
 * ago is answered from the kept answer, without calling the agents or the
 * model.
 *
 * "Near-duplicate" is judged on what the question resolved to, not on its
 * wording: the key is the registry version, the language and the sorted
 * (agent, canonical inputs) of the plan, so "北京明天天气怎么样" and
 * "明天北京的天气如何？" share an entry once both resolve to the same city and
 * date. The question's residual qualifiers (what the extractor did not
 * capture, cache-scope.ts) are part of the key too, so "广州下个月天气怎么样"
 * never gets the entry of "广州天气如何". An agent called without inputs is keyed on its normalised sub-task
 * message too (case, width, punctuation and spaces folded), since that is all
 * it is asked. Any registry edit is a new version and so a new key space.
 *
 * Only a read-only plan whose every agent opted in (`cache_ttl_s`,
 * docs/api.md#registry-file) and runs now is kept, for the shorter of
 * `answer_cache_ttl_s` and its agents' TTLs. An entry is shared within one
 * tenant only, and only when the answer can hold nothing of the user's own
 * (the rules of `cache-scope.ts`, profile fills, personal data in the question:
 * docs/api.md#personal-data); an answer carrying personal data is not kept at
 * all. Entries live in the storage contract's key-value store, under digests,
 * so every replica reads them.
 */
import type { Logger } from '../../logger.js';
import { normalizeQueryForCache } from '../../intent/index.js';
import { createPiiMasker } from '../../privacy/index.js';
import type { AgentCard, RegistrySnapshot } from '../../registry/index.js';
import { type KeyValue, type KeyValueStore, tenantOfOwner } from '../../store/index.js';
import { LRUCache } from 'lru-cache';
import { cosine } from '../../embeddings/index.js';
import { canonicalJson, digest, isUserSpecific, residualQualifiers, splitQualifiers } from './cache-scope.js';
import { isCacheable } from './response-cache.js';
import type { Language } from '../../i18n/index.js';
import type { SubTask, TaskPlan } from '../../planning/index.js';

/** Where one plan's answer is kept, and for how long. */
export interface AnswerCacheKey {
  key: string;
  /** `shared` across users, or `user` (the entry is keyed on the user). */
  scope: 'shared' | 'user';
  ttlMs: number;
  /** task_id of the plan → the digest naming that task in the entry (task ids differ between plans). */
  taskKeys: Record<string, string>;
  /**
   * The key without the terms that only restate the request (`splitQualifiers`): questions of one family
   * have the same agents, inputs, qualifiers, scope, language and registry version, and may differ only in
   * how they ask. Absent when the plan has a task without inputs (keyed on its wording).
   */
  family?: string;
}

/** The question's meaning, for the paraphrase look-up (from the embeddings endpoint; memory only). */
export interface AnswerCacheMeaning {
  /** Unit vector of the question. */
  vector: Float32Array;
  /** Cosine two questions of one family need to share an answer (calibrated per registry, `semantic-index.ts`). */
  paraphrase: number;
}

/** One task's reply as the entry keeps it. */
export interface CachedAnswerTask {
  /** Digest of (agent, inputs[, message]): matches the task of a later plan. */
  key: string;
  agent_id: string;
  output?: Record<string, unknown>;
  message?: string;
}

/** A kept answer. */
export interface CachedAnswer {
  /** The answer body (the per-turn notices that open an answer are not part of it). */
  answer: string;
  tasks: CachedAnswerTask[];
  /** ISO time it was stored. */
  cached_at: string;
}

/** What a plan's key is computed from. */
export interface AnswerCacheRequest {
  snapshot: RegistrySnapshot;
  /** The owner key of the user (the user id within its tenant, store/owner-key.ts). */
  owner: string;
  language: Language;
  plan: TaskPlan;
  /** Sent to an agent whose task has no description of its own. */
  rewrittenQuery: string;
  /** The user's text and its rewrite: personal data in either keeps the entry per user. */
  texts: readonly string[];
  /** True when a key of the plan was filled from the user's profile. */
  profileFilled: boolean;
  /** The user's question in normal form (the message's reading, `MessageReading.normal`): its residual qualifiers are part of the key. */
  question: string;
  /** The user's today (date expressions of the question resolve against it). */
  today: Date;
}

export interface AnswerCache {
  /**
   * The kept answer under this key, if one is live; else, when `meaning` gives the question's vector, the
   * answer of a question of the same family asked in other words (`matched: 'paraphrase'`). `meaning` is
   * only read on an exact miss.
   */
  lookup(key: AnswerCacheKey, meaning?: () => Promise<AnswerCacheMeaning | undefined>): Promise<(CachedAnswer & { matched: 'exact' | 'paraphrase' }) | undefined>;
  /** Keeps an answer for the key's time to live; with `meaning`, this replica can find it by a paraphrase. */
  remember(key: AnswerCacheKey, answer: Omit<CachedAnswer, 'cached_at'>, meaning?: AnswerCacheMeaning): Promise<void>;
}

const maskers = new WeakMap<RegistrySnapshot, ReturnType<typeof createPiiMasker>>();

/** True when the text carries personal data as the snapshot's masking sees it. */
function hasPersonalData(snapshot: RegistrySnapshot, text: string): boolean {
  let masker = maskers.get(snapshot);
  if (!masker) {
    masker = createPiiMasker(snapshot.supervisor.piiPatterns);
    maskers.set(snapshot, masker);
  }
  return text.length > 0 && masker.mask(text) !== text;
}

/**
 * True when a turn's answer may be written to the store: neither the answer
 * nor the kept replies carry personal data (the store is a database like
 * any other: docs/api.md#personal-data data never lands there raw, and a masked answer
 * would be a wrong one).
 */
export function answerMayBeKept(snapshot: RegistrySnapshot, answer: Omit<CachedAnswer, 'cached_at'>): boolean {
  return !hasPersonalData(snapshot, JSON.stringify(answer));
}

function hasInputs(task: SubTask): boolean {
  return Object.values(task.inputs).some((value) => value !== undefined && value !== null);
}

/** The key of a plan's answer, or undefined when the plan may not be answered from cache (see the file header). */
export function answerCacheKey(request: AnswerCacheRequest): AnswerCacheKey | undefined {
  const { snapshot, plan } = request;
  let ttlS = snapshot.supervisor.answerCacheTtlS;
  if (!(ttlS > 0) || plan.sub_tasks.length === 0) return undefined;
  const taskKeys: Record<string, string> = {};
  let personal = request.profileFilled;
  const cards: AgentCard[] = [];
  let allInputs = true;
  for (const task of plan.sub_tasks) {
    const card = snapshot.byId.get(task.assigned_agent);
    // Caching an agent's answers is its own opt-in (docs/api.md#sub-agent-wire-protocol): an agent without `cache_ttl_s` is always asked.
    if (!card || !card.enabled || !isCacheable(card) || task.status !== 'pending') return undefined;
    ttlS = Math.min(ttlS, card.cacheTtlS!);
    cards.push(card);
    const message = task.description.trim() || request.rewrittenQuery;
    const inputs = hasInputs(task);
    taskKeys[task.task_id] = digest(`${card.id}|${canonicalJson(task.inputs)}${inputs ? '' : `|${normalizeQueryForCache(message)}`}`);
    if (!inputs || isUserSpecific(card, task.inputs)) personal = true;
    if (!inputs) allInputs = false;
  }
  if (request.texts.some((text) => hasPersonalData(snapshot, text))) personal = true;
  const qualifiers = residualQualifiers(request.question, cards, plan.sub_tasks.flatMap((task) => Object.values(task.inputs)), request.today);
  const planDigest = digest(`${Object.values(taskKeys).sort().join(',')}|q:${qualifiers}`);
  const scope = personal ? 'user' : 'shared';
  // Never shared across tenants: the tenant is part of every key, the owner key of a personal one.
  const owner = personal ? `user:${digest(request.owner)}` : 'shared';
  const tenant = tenantOfOwner(request.owner);
  const space = `${snapshot.version}:${request.language}:tenant:${tenant}:${owner}`;
  const key = { key: `answer:${space}:${planDigest}`, scope, ttlMs: ttlS * 1000, taskKeys } as const;
  if (!allInputs) return key;
  const { qualifiers: kept } = splitQualifiers(qualifiers, cards, valuesOf(snapshot));
  return { ...key, family: `family:${space}:${digest(`${Object.values(taskKeys).sort().join(',')}|q:${kept.join(',')}`)}` };
}

const snapshotValues = new WeakMap<RegistrySnapshot, ReadonlySet<string>>();

/** Every value an enum key of the snapshot's cards can take (normal form, lower case). */
function valuesOf(snapshot: RegistrySnapshot): ReadonlySet<string> {
  let values = snapshotValues.get(snapshot);
  if (!values) {
    values = new Set(
      snapshot.agents.flatMap((card) => card.requiredKeys.flatMap((spec) => (spec.extract.type === 'enum' ? spec.extract.values : []))).map((value) => value.normalize('NFKC').toLowerCase()).filter((value) => value.length > 0),
    );
    snapshotValues.set(snapshot, values);
  }
  return values;
}

function isCachedAnswer(value: KeyValue | undefined): value is KeyValue & CachedAnswer {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  return typeof value.answer === 'string' && Array.isArray(value.tasks) && typeof value.cached_at === 'string';
}

/**
 * Creates the answer cache over a key-value store. A store failure is logged
 * and read as a miss (a cache may miss, never fail a turn). `onLookup` is told
 * each lookup's outcome (metrics).
 */
export function createAnswerCache(options: {
  store: KeyValueStore;
  logger: Logger;
  now?: () => Date;
  onLookup?: (hit: boolean) => void;
  /** Told each paraphrase look-up's outcome (an exact miss whose question had a vector). */
  onParaphraseLookup?: (hit: boolean) => void;
  /** Questions this replica keeps the vector of for the paraphrase look-up. Default 2000. */
  paraphraseEntries?: number;
}): AnswerCache {
  const { store, logger, onLookup, onParaphraseLookup } = options;
  const now = options.now ?? (() => new Date());
  // The vectors of users' questions stay in this replica's memory (never in the store): key → vector, and
  // family → keys. The answers themselves are in the store, under their exact keys.
  const families = new Map<string, Set<string>>();
  const vectors = new LRUCache<string, { family: string; vector: Float32Array; expiresAt: number }>({
    max: options.paraphraseEntries ?? 2000,
    dispose: (entry, key) => {
      const members = families.get(entry.family);
      members?.delete(key);
      if (members?.size === 0) families.delete(entry.family);
    },
  });

  async function read(key: string): Promise<CachedAnswer | undefined> {
    const value = await store.get(key).catch((error: unknown) => {
      logger.warn({ err: error }, 'answer cache read failed');
      return undefined;
    });
    return isCachedAnswer(value) ? (value as CachedAnswer) : undefined;
  }

  /** The closest question of the family in meaning, at or above the calibrated cosine; its answer if still kept. */
  async function paraphrased(key: AnswerCacheKey, meaning: AnswerCacheMeaning): Promise<CachedAnswer | undefined> {
    let best: { key: string; similarity: number } | undefined;
    const at = now().getTime();
    for (const member of [...(families.get(key.family!) ?? [])]) {
      const entry = vectors.get(member);
      if (!entry || entry.expiresAt <= at) {
        vectors.delete(member);
        continue;
      }
      const similarity = cosine(meaning.vector, entry.vector);
      if (similarity >= meaning.paraphrase && similarity > (best?.similarity ?? -1)) best = { key: member, similarity };
    }
    if (!best) return undefined;
    const kept = await read(best.key);
    if (!kept) vectors.delete(best.key);
    return kept;
  }

  return {
    async lookup(key, meaning) {
      const exact = await read(key.key);
      if (exact || !key.family || !meaning) {
        onLookup?.(exact !== undefined);
        return exact ? { ...exact, matched: 'exact' } : undefined;
      }
      const vector = await meaning().catch(() => undefined);
      const near = vector ? await paraphrased(key, vector) : undefined;
      if (vector) onParaphraseLookup?.(near !== undefined);
      onLookup?.(near !== undefined);
      return near ? { ...near, matched: 'paraphrase' } : undefined;
    },
    async remember(key, answer, meaning) {
      const entry: CachedAnswer = { answer: answer.answer, tasks: answer.tasks, cached_at: now().toISOString() };
      await store.set(key.key, entry as unknown as KeyValue, key.ttlMs).catch((error: unknown) => {
        logger.warn({ err: error }, 'answer cache write failed');
      });
      if (!meaning || !key.family) return;
      vectors.set(key.key, { family: key.family, vector: meaning.vector, expiresAt: now().getTime() + key.ttlMs });
      const members = families.get(key.family) ?? new Set<string>();
      members.add(key.key);
      families.set(key.family, members);
    },
  };
}
