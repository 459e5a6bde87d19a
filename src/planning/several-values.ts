/**
 * Several values for one key: "北京和上海明天的天气", "weather in Beijing and
 * Shanghai tomorrow", "查一下明天北京的天气，再告诉我上海明天的天气". Reading the key
 * once would keep the last value and drop the others without a word, so:
 *
 * - A read-only agent gets one task per value (run in parallel, like any
 *   independent tasks), each with its own words ("北京明天的天气").
 * - An agent with side effects is asked which value it is: the key is left
 *   unfilled and refused with the values the user gave, never one of them
 *   silently booked.
 *
 * Values count as several only when the sentence joins them: a coordinating
 * word between them ("和", "、", "and", "or"; also after words the second value
 * repeats: "5G流量和10G流量", "5GB of data and 10GB of data"), or each in a clause of its own
 * that names the agent's request ("…北京的天气，再告诉我上海…的天气"). A value
 * another key of the same agent takes ("从北京到上海": origin and destination)
 * is that key's, and "我在北京，想知道上海的天气" is one city: the first clause
 * names no request.
 */
import type { AgentCard, SemanticKeySpec } from '../registry/index.js';
import { enumValueMatcher, extractKeys, extractOne, findDates, findEmails, findPhones, isRuledOut } from '../text/index.js';
import { requestWordIn, splitClauses, type Clause } from '../understanding/index.js';
import type { InvalidKey, SubTask } from './plan-types.js';

/** One value found for a key, and where. */
interface ValueHit {
  value: string | number;
  raw: string;
  start: number;
  end: number;
}

/** A key given several values in one agent's words, and the words of each value's own request. */
export interface SeveralValues {
  key: string;
  values: (string | number)[];
  /** Per value: the agent's words narrowed to that value ("北京明天的天气"). */
  texts: string[];
  /** Per value: the other required keys read from those words (they may differ per clause). */
  own: Record<string, string | number>[];
}

/** The most values one key is split into; more are asked about like a side effect's. */
export const MAX_VALUES_PER_KEY = 5;

const COORDINATOR = /^(?:和|跟|与|及|以及|或|或者|还有|、|,|，|\/|&|and|or|plus|as well as)$/iu;
/** A coordinating word ending the words between two values, and what comes before it. */
const ENDS_IN_COORDINATOR = /^(.*?)\s*(?:以及|或者|还有|和|跟|与|及|或|、|,|，|\/|&|(?<![A-Za-z])(?:and|or|plus|as well as))$/isu;
/** The longest run of words the second value may repeat after it ("流量", "of data"). */
const MAX_REPEATED_WORDS = 12;

/**
 * Whether the words between two values coordinate them: a coordinating word alone ("北京和上海"), or the
 * words after the first value, then the coordinating word, when the second value is followed by the same
 * words ("5G流量和10G流量").
 */
function coordinated(text: string, left: { end: number }, right: { start: number; end: number }): boolean {
  const between = text.slice(left.end, right.start).trim();
  if (COORDINATOR.test(between)) return true;
  const ending = ENDS_IN_COORDINATOR.exec(between);
  const repeated = ending?.[1]?.trim() ?? '';
  if (repeated.length === 0 || repeated.length > MAX_REPEATED_WORDS) return false;
  return text.slice(right.end).trimStart().toLowerCase().startsWith(repeated.toLowerCase());
}

/** The first required key of `card` given several joined values in `text` (see the file header), or undefined. */
export function findSeveralValues(text: string, card: AgentCard, extracted: Readonly<Record<string, unknown>>, now: Date): SeveralValues | undefined {
  const clauses = splitClauses(text);
  for (const spec of card.requiredKeys) {
    const taken = new Set(card.requiredKeys.filter((other) => other.key !== spec.key).map((other) => String(extracted[other.key] ?? '')));
    const hits = hitsOf(text, spec, now).filter((hit) => !taken.has(String(hit.value)));
    const chain = joinedChain(text, hits, clauses, card);
    if (chain.length < 2) continue;
    const values = [...new Map(chain.map((hit) => [String(hit.value), hit.value])).values()];
    if (values.length < 2) continue;
    const texts = values.map((value) => narrowedText(text, chain, chain.find((hit) => hit.value === value)!, clauses, card));
    const own = texts.map((words) => extractKeys(words, card.requiredKeys.filter((other) => other.key !== spec.key), now).values);
    return { key: spec.key, values, texts, own };
  }
  return undefined;
}

/** Every value of `spec` in `text`, left to right (free-text keys are read once). */
function hitsOf(text: string, spec: SemanticKeySpec, now: Date): ValueHit[] {
  const extract = spec.extract;
  if (extract.type === 'phone') return findPhones(text).filter((hit) => !isRuledOut(text, hit.start));
  if (extract.type === 'email') return findEmails(text).filter((hit) => !isRuledOut(text, hit.start));
  if (extract.type === 'number') return numberHits(text, spec, now);
  if (extract.type === 'enum') {
    return enumValueMatcher(extract.values).findAll(text).filter((hit) => !isRuledOut(text, hit.start)).map((hit) => ({ value: hit.payloads[0]!, raw: text.slice(hit.start, hit.end), start: hit.start, end: hit.end }));
  }
  if (extract.type === 'pattern') {
    return extract.matcher.findAll(text).filter((match) => !isRuledOut(text, match.start)).flatMap((match) => {
      const value = (match.groups.length > 0 && match.groups[0] !== null ? match.groups[0]! : match.text).trim();
      return value.length > 0 ? [{ value, raw: match.text, start: match.start, end: match.end }] : [];
    });
  }
  if (extract.type === 'date') {
    return findDates(text, now).filter((hit) => !isRuledOut(text, hit.start)).flatMap((hit) => (hit.value ? [{ value: hit.value, raw: hit.raw, start: hit.start, end: hit.end }] : []));
  }
  return [];
}

/**
 * The numbers of a number key: runs of digits outside dates, phone numbers and e-mail addresses that the key
 * itself reads as its value on their own (within its min and max).
 */
function numberHits(text: string, spec: SemanticKeySpec, now: Date): ValueHit[] {
  const masked = [...findDates(text, now), ...findPhones(text), ...findEmails(text)];
  const hits: ValueHit[] = [];
  for (const match of text.matchAll(/(?<![\w.\-])\d+(?:\.\d+)?(?![\w.])/g)) {
    const [start, end] = [match.index, match.index + match[0].length];
    if (masked.some((span) => start < span.end && span.start < end) || isRuledOut(text, start)) continue;
    const outcome = extractOne(match[0], spec.extract, now);
    if (outcome && 'value' in outcome) hits.push({ value: outcome.value, raw: match[0], start, end });
  }
  return hits;
}

/** The run of hits ending at the last one in which each is joined to the next (see the file header). */
function joinedChain(text: string, hits: readonly ValueHit[], clauses: readonly Clause[], card: AgentCard): ValueHit[] {
  const sorted = [...hits].sort((left, right) => left.start - right.start);
  if (sorted.length < 2) return [];
  const chain = [sorted[sorted.length - 1]!];
  for (let index = sorted.length - 2; index >= 0; index--) {
    const left = sorted[index]!;
    const right = chain[0]!;
    if (left.end > right.start || !joined(text, left, right, clauses, card)) break;
    chain.unshift(left);
  }
  return chain;
}

function joined(text: string, left: ValueHit, right: ValueHit, clauses: readonly Clause[], card: AgentCard): boolean {
  if (coordinated(text, left, right)) return true;
  const [leftClause, rightClause] = [clauseAt(clauses, left.start), clauseAt(clauses, right.start)];
  return leftClause !== undefined && rightClause !== undefined && leftClause !== rightClause && requestWordIn(leftClause.text, card) !== undefined && requestWordIn(rightClause.text, card) !== undefined;
}

const clauseAt = (clauses: readonly Clause[], at: number) => clauses.find((clause) => clause.start <= at && at < clause.start + clause.text.length);

/**
 * The words of one value's request: the text with the joined values written as that one ("北京和上海明天的天气" →
 * "北京明天的天气"); when the values stand in several requests of their own, that value's request clause.
 */
function narrowedText(text: string, chain: readonly ValueHit[], hit: ValueHit, clauses: readonly Clause[], card: AgentCard): string {
  const runs: ValueHit[][] = [];
  for (const other of chain) {
    const last = runs[runs.length - 1];
    if (last && coordinated(text, last[last.length - 1]!, other)) last.push(other);
    else runs.push([other]);
  }
  const run = runs.find((candidate) => candidate.includes(hit))!;
  const clause = clauseAt(clauses, hit.start);
  const own = runs.length > 1 && clause && requestWordIn(clause.text, card) && run[0]!.start >= clause.start && run[run.length - 1]!.end <= clause.start + clause.text.length;
  const [base, offset] = own ? [clause.text, clause.start] : [text, 0];
  if (run.length < 2) return base;
  return `${base.slice(0, run[0]!.start - offset)}${hit.raw}${base.slice(run[run.length - 1]!.end - offset)}`;
}

/** What `splitSeveralValues` reads of each task. */
export interface SeveralValuesInput {
  tasks: readonly SubTask[];
  cardOf: (agentId: string) => AgentCard | undefined;
  /** Each agent's own words this turn (its clause group); agents absent here are left as they are. */
  textOf: (agentId: string) => string | undefined;
  invalidKeys: Record<string, InvalidKey[]>;
  planId: string;
  now: Date;
}

/**
 * One task per value for read-only agents, the key refused with the values for side-effect agents (see the
 * file header). Task ids are numbered again in order when a task was split; a dependency on a split task
 * becomes a dependency on each of its copies.
 */
export function splitSeveralValues(input: SeveralValuesInput): { tasks: SubTask[]; invalidKeys: Record<string, InvalidKey[]> } {
  const expanded: { from: string; task: SubTask }[] = [];
  const invalidKeys: Record<string, InvalidKey[]> = { ...input.invalidKeys };
  let split = false;
  for (const task of input.tasks) {
    const card = input.cardOf(task.assigned_agent);
    const text = input.textOf(task.assigned_agent);
    const found = card && text ? findSeveralValues(text, card, task.inputs, input.now) : undefined;
    if (!card || !found || invalidKeys[task.task_id]?.some((item) => item.key === found.key)) {
      expanded.push({ from: task.task_id, task });
      continue;
    }
    if (card.sideEffects === true || found.values.length > MAX_VALUES_PER_KEY) {
      const inputs = { ...task.inputs };
      delete inputs[found.key];
      const raw = found.values.map(String).join('、');
      invalidKeys[task.task_id] = [...(invalidKeys[task.task_id] ?? []), { key: found.key, raw, reason: `several values: ${raw}`, several: found.values.map(String) }];
      expanded.push({ from: task.task_id, task: { ...task, inputs } });
      continue;
    }
    split = true;
    found.values.forEach((value, index) => {
      expanded.push({ from: task.task_id, task: { ...task, description: found.texts[index]!, inputs: { ...task.inputs, ...found.own[index], [found.key]: value } } });
    });
  }
  if (!split) return { tasks: expanded.map((entry) => entry.task), invalidKeys };
  const idsOf = new Map<string, string[]>();
  const renamed = expanded.map((entry, index) => {
    const id = `${input.planId}_task_${index + 1}`;
    idsOf.set(entry.from, [...(idsOf.get(entry.from) ?? []), id]);
    return { ...entry, id };
  });
  const tasks = renamed.map(({ task, id }) => ({ ...task, task_id: id, dependencies: task.dependencies.flatMap((dependency) => idsOf.get(dependency) ?? [dependency]) }));
  const renumbered: Record<string, InvalidKey[]> = {};
  for (const [taskId, items] of Object.entries(invalidKeys)) for (const id of idsOf.get(taskId) ?? [taskId]) renumbered[id] = items.map((item) => ({ ...item }));
  return { tasks, invalidKeys: renumbered };
}
