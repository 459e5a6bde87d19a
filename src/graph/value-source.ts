/**
 * Where each input value came from. Switchboard books, refunds and pays: a
 * value reaches a sub-agent only when the user said it in this session, it is
 * a profile fact the answer shows, or it is an upstream task's output. Which
 * step found a value (a clause rule, the model's draft, slot memory, a parked
 * task) does not matter; what matters is that one of those sources holds it.
 *
 * So sources are not trusted from whoever proposed a value: `sourceTaskInputs`
 * looks each value up in the session's evidence (the user's own words of each
 * turn, never the model's rewrite; values that were sourced when they were
 * kept; the profile values filled this turn) and drops what it cannot place.
 * Its result is the only way to make `SourcedInputs`, the type the dispatcher
 * sends, and the dispatcher refuses (asks for the key) an input whose source
 * is not recorded on the task.
 */
import type { AgentCard, ExtractSpec } from '../registry/index.js';
import { spanOfValue, valueForm, type MessageReading } from '../understanding/index.js';

/** Where one input value came from (its shape is kept with the parked task's, in the storage layer). */
export type { ValueSource } from '../store/index.js';
import type { ValueSource } from '../store/index.js';

declare const SOURCED: unique symbol;

/** Task inputs whose every value has a recorded source; only `sendableInputs` makes one. */
export type SourcedInputs = Readonly<Record<string, unknown>> & { readonly [SOURCED]: true };

/** One turn of what the user typed. */
export interface UserText {
  turn: number;
  text: string;
  /** This turn's: the turn's reading of `text`, where its values are looked up (`understanding/value-spans.ts`). */
  message?: MessageReading;
}

/** What a value may be found in (see the file header). */
export interface SessionEvidence {
  /** The user's texts, this turn last. */
  userTexts: readonly UserText[];
  /** key → value → its source, for values sourced when they were kept (parked tasks, slot memory). */
  kept: ReadonlyMap<string, ReadonlyMap<string, ValueSource>>;
  /** Profile values filled this turn, by task id and key. */
  profile: readonly { task_id: string; key: string; value: string | number }[];
  now: Date;
}

/** Builds the evidence map of kept sources from `(key, value, source)` triples; later ones win. */
export function keptSources(entries: Iterable<[string, unknown, ValueSource | undefined]>): Map<string, Map<string, ValueSource>> {
  const kept = new Map<string, Map<string, ValueSource>>();
  for (const [key, value, source] of entries) {
    if (!source || !isScalar(value)) continue;
    if (!kept.has(key)) kept.set(key, new Map());
    kept.get(key)!.set(valueForm(value), source);
  }
  return kept;
}

function isScalar(value: unknown): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}

/** The extract rule a key's value is read with: a required key's own, else one derived from the input schema. */
function specFor(card: AgentCard, key: string): ExtractSpec | undefined {
  const required = card.requiredKeys.find((spec) => spec.key === key);
  if (required) return required.extract;
  const property = ((card.inputSchema?.properties ?? {}) as Record<string, { format?: unknown; enum?: unknown; type?: unknown }>)[key];
  if (typeof property !== 'object' || property === null) return undefined;
  if (property.format === 'date') return { type: 'date' };
  if (Array.isArray(property.enum) && property.enum.every((item) => typeof item === 'string')) return { type: 'enum', values: property.enum as string[] };
  if (property.type === 'integer' || property.type === 'number') return { type: 'number' };
  return undefined;
}

/** Where `text` states `value`: as written, or as what the key's extract rule (or the date reader) reads from it. */
export const spanOf = spanOfValue;

/** The source of one value of `task`, or undefined when none of the evidence holds it. */
export function findSource(task: { task_id: string }, card: AgentCard, key: string, value: unknown, evidence: SessionEvidence): ValueSource | undefined {
  if (!isScalar(value)) return undefined;
  if (evidence.profile.some((fill) => fill.task_id === task.task_id && fill.key === key && valueForm(fill.value) === valueForm(value))) return { kind: 'profile', key };
  const spec = specFor(card, key);
  // The most recent turn that states it; the current turn first.
  for (let index = evidence.userTexts.length - 1; index >= 0; index--) {
    const { turn, text, message } = evidence.userTexts[index]!;
    const span = spanOfValue(message ?? text, value, spec, evidence.now);
    if (span) return { kind: 'user', turn, ...span };
  }
  return evidence.kept.get(key)?.get(valueForm(value));
}

/**
 * The task with only the inputs the evidence holds, each with its source, and
 * the keys whose values were dropped. A dropped required key is then missing,
 * and the semantic check asks the user for it.
 */
export function sourceTaskInputs<T extends { task_id: string; inputs: Record<string, unknown> }>(
  task: T,
  card: AgentCard,
  evidence: SessionEvidence,
): { task: T & { sources: Record<string, ValueSource> }; dropped: string[] } {
  const inputs: Record<string, unknown> = {};
  const sources: Record<string, ValueSource> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(task.inputs)) {
    if (value === undefined || value === null || value === '') continue;
    const source = findSource(task, card, key, value, evidence);
    if (!source) {
      dropped.push(key);
      continue;
    }
    inputs[key] = value;
    sources[key] = source;
  }
  return { task: { ...task, inputs, sources }, dropped };
}

/**
 * What the dispatcher may send: the task's inputs when each has a recorded
 * source, else the keys that have none (the dispatcher asks for them instead).
 */
export function sendableInputs(task: { inputs: Readonly<Record<string, unknown>>; sources?: Readonly<Record<string, ValueSource>> }): { inputs: SourcedInputs } | { unsourced: string[] } {
  const unsourced = Object.entries(task.inputs)
    .filter(([key, value]) => value !== undefined && value !== null && value !== '' && task.sources?.[key] === undefined)
    .map(([key]) => key);
  if (unsourced.length > 0) return { unsourced };
  return { inputs: task.inputs as SourcedInputs };
}

/** What the evidence is built from: the turn's text, the session's memory and the profile values filled this turn. */
export interface EvidenceInput {
  /** The turn's reading of what the user typed this turn. */
  message: MessageReading;
  /** Earlier turns in the verbatim window, oldest first (their `query` is what the user typed). */
  history: readonly { query: string }[];
  /** Turns folded into the summary before the window. */
  foldedTurns: number;
  pending: readonly { inputs: Readonly<Record<string, unknown>>; sources?: Readonly<Record<string, ValueSource>> }[];
  knownValues: Readonly<Record<string, string | number>>;
  knownSources?: Readonly<Record<string, ValueSource>>;
  profile: SessionEvidence['profile'];
  now: Date;
}

/** The session's evidence (see `SessionEvidence`); the current turn is number `foldedTurns + history.length + 1`. */
export function sessionEvidence(input: EvidenceInput): SessionEvidence {
  const userTexts: UserText[] = input.history.map((turn, index) => ({ turn: input.foldedTurns + index + 1, text: turn.query }));
  userTexts.push({ turn: input.foldedTurns + input.history.length + 1, text: input.message.query, message: input.message });
  const triples: [string, unknown, ValueSource | undefined][] = Object.entries(input.knownValues).map(([key, value]) => [key, value, input.knownSources?.[key]]);
  for (const task of input.pending) for (const [key, value] of Object.entries(task.inputs)) triples.push([key, value, task.sources?.[key]]);
  return { userTexts: userTexts.filter((entry) => entry.text.trim().length > 0), kept: keptSources(triples), profile: input.profile, now: input.now };
}
