/**
 * The long-term profile layer (docs/api.md#environment): which facts a completed turn
 * teaches, which fact may fill a missing key, and how the answer says so.
 *
 * - Learned: enum values of required keys marked `remember: true`
 *   (docs/api.md#registry-file) that completed read-only or write tasks were given this turn (not
 *   the ones the profile itself filled), and the language of the query. One
 *   piece of evidence per key per turn. A key without `remember` (a refund
 *   reason, an order id) is never carried into another session.
 * - Used: a fact fills a key only when the user gave none, nothing
 *   contradicts it (one sighting is enough: a newer different value replaces
 *   the fact in the store, so the fact held is always the latest word), it was
 *   seen within the last 180 days (older evidence has decayed), is still
 *   valid for the key and the key is marked `remember` on the agent being
 *   filled (a fact stored before the key lost its mark is not used). An agent
 *   with `side_effects` is filled too: its task is held for the user's yes
 *   anyway, and the confirmation shows the value and says it came from the
 *   profile (control/confirmation.ts), so a write never runs on a value the
 *   user has not seen. The answer always says which value came from the
 *   profile, so a wrong guess costs the user one short correction.
 */
import { type AgentCard, keyDescription } from '../../registry/index.js';
import type { ProfileEvidence, ProfileFact } from '../../store/index.js';
import { type Language, profileUsedText } from '../../i18n/index.js';
import { checkKeyValue, type SubTask, type TaskOutcome } from '../../planning/index.js';

/** A key filled from the profile this turn. */
export interface ProfileFill {
  task_id: string;
  key: string;
  value: string | number;
  /** The key's user-facing description. */
  description: string;
}

/** Sightings needed before a fact is used: one, since the store keeps only the latest value per key. */
const MIN_HITS = 1;
const MAX_AGE_MS = 180 * 24 * 3600 * 1000;

/** The fact usable for `key` now, if any. */
export function usableFact(facts: readonly ProfileFact[], key: string, now: Date): ProfileFact | undefined {
  const fact = facts.find((candidate) => candidate.key === key);
  if (!fact || fact.hits < MIN_HITS) return undefined;
  const age = now.getTime() - Date.parse(fact.updated_at);
  return Number.isFinite(age) && age <= MAX_AGE_MS ? fact : undefined;
}

/** Fills missing `remember` keys of tasks from the profile (side-effect tasks are held and show it); returns the new tasks and what was filled. */
export function fillFromProfile(
  tasks: readonly SubTask[],
  facts: readonly ProfileFact[],
  cardOf: (agentId: string) => AgentCard | undefined,
  invalidKeys: Readonly<Record<string, readonly { key: string }[]>>,
  now: Date,
  language?: string,
): { tasks: SubTask[]; filled: ProfileFill[] } {
  const filled: ProfileFill[] = [];
  const next = tasks.map((task) => {
    const card = cardOf(task.assigned_agent);
    if (!card || facts.length === 0) return task;
    let inputs = task.inputs;
    for (const spec of card.requiredKeys) {
      if (spec.remember !== true) continue;
      if (inputs[spec.key] !== undefined && inputs[spec.key] !== null && inputs[spec.key] !== '') continue;
      if (invalidKeys[task.task_id]?.some((item) => item.key === spec.key)) continue;
      const fact = usableFact(facts, spec.key, now);
      if (!fact || checkKeyValue(spec.extract, fact.value) !== null) continue;
      inputs = { ...inputs, [spec.key]: fact.value };
      filled.push({ task_id: task.task_id, key: spec.key, value: fact.value, description: language ? keyDescription(spec, language) : spec.description });
    }
    return inputs === task.inputs ? task : { ...task, inputs };
  });
  return { tasks: next, filled };
}

/** What a finished business turn teaches about the user. */
export function profileEvidence(options: {
  tasks: readonly SubTask[];
  outcomes: Readonly<Record<string, TaskOutcome>>;
  cardOf: (agentId: string) => AgentCard | undefined;
  filled: readonly ProfileFill[];
  language: Language;
  sessionId: string;
  turnId?: string;
  at: string;
}): ProfileEvidence[] {
  const base = { session_id: options.sessionId, ...(options.turnId ? { turn_id: options.turnId } : {}), at: options.at };
  const byKey = new Map<string, ProfileEvidence>();
  for (const task of options.tasks) {
    if (options.outcomes[task.task_id]?.status !== 'completed') continue;
    const card = options.cardOf(task.assigned_agent);
    for (const spec of card?.requiredKeys ?? []) {
      const value = task.inputs[spec.key];
      if (spec.remember !== true || spec.extract.type !== 'enum' || (typeof value !== 'string' && typeof value !== 'number') || byKey.has(spec.key)) continue;
      if (options.filled.some((item) => item.task_id === task.task_id && item.key === spec.key)) continue;
      byKey.set(spec.key, { key: spec.key, value, ...base });
    }
  }
  if (byKey.size === 0) return [];
  return [...byKey.values(), { key: 'language', value: options.language, ...base }];
}

/** The sentence that tells the user a value came from their profile ("using your usual city 上海 — say another if not"). */
export function profileNote(filled: readonly ProfileFill[], language: Language): string {
  if (filled.length === 0) return '';
  const unique = [...new Map(filled.map((item) => [`${item.key}=${item.value}`, item])).values()];
  return profileUsedText(language, unique);
}

/** The facts a registry still remembers: keys marked `remember` on some agent, and the language. */
export function rememberedFacts(facts: readonly ProfileFact[], cards: Iterable<AgentCard>): ProfileFact[] {
  const remembered = new Set<string>(['language']);
  for (const card of cards) for (const spec of card.requiredKeys) if (spec.remember === true) remembered.add(spec.key);
  return facts.filter((fact) => remembered.has(fact.key));
}

/** The profile as prompt text (usable facts only). */
export function renderProfile(facts: readonly ProfileFact[], now: Date): string {
  const usable = facts.filter((fact) => usableFact(facts, fact.key, now) === fact);
  return usable.map((fact) => `${fact.key}=${fact.value}`).join(', ');
}
