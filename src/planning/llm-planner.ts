/**
 * The LLM planner: turns the plan the model drafted in the intent call into a
 * checked `TaskPlan`, without another model call (a business turn stays at
 * two calls: intent + plan, then the final answer).
 *
 * The draft is a proposal, never evidence. Kept of it: sub-tasks of enabled
 * agents (one per agent, the intents' agents added when forgotten), the
 * dependencies the cards allow, and input values the conversation supports
 * and that keep to the agent's own clause (as the offline planner's do:
 * `planning/clause-values.ts`); the user's own words outrank the
 * model's rewrite. A model must never invent a value, and a side-effect agent
 * never takes one from outside its own words unless it was parked waiting for
 * it. Missing keys are then filled as the offline planner fills them, so the
 * semantic check parks exactly what is really missing. No usable draft → the
 * offline planner.
 */
import { extractOne, findDates } from '../text/index.js';
import { type AgentCard, resolveAgentId, type SemanticKeySpec } from '../registry/index.js';
import { requestWordOf, type ReadClause } from '../understanding/index.js';
import { readPlanTexts, type PlanTexts } from './plan-texts.js';
import { attributeClauseValues, type AgentClauseValues } from './clause-values.js';
import type { DraftPlanEnvelope, DraftSubTask } from './draft-schema.js';
import { createDraftReader } from './draft-reader.js';
import type { Logger } from '../logger.js';
import type { InvalidKey, SubTask } from './plan-types.js';
import { findCycle, topologicalOrder } from './dag.js';
import { splitSeveralValues } from './several-values.js';
import { assemblePlan, buildSubTasks, extractOptionalInputs, joinWords } from './sub-tasks.js';
import type { Planner, PlanRequest, PlanResult, RankedIntent } from './types.js';

/** Dependencies of the LLM planner. */
export interface LlmPlannerOptions {
  /** Plans turns without a usable draft (normally the offline planner). */
  fallback: Planner;
  logger: Logger;
}

/** What was removed from a draft, for logs and tests. */
export interface DraftCorrections {
  droppedAgents: string[];
  droppedDependencies: string[];
  droppedKeys: string[];
  droppedValues: string[];
  /** Values the query holds only outside the agent's own clause. */
  outOfClauseValues: string[];
}

type Primitive = string | number | boolean;

/** Creates the LLM planner. Throws a `TypeError` naming a missing dependency. */
export function createLlmPlanner(options: LlmPlannerOptions): Planner {
  if (!options?.fallback || typeof options.fallback.plan !== 'function') throw new TypeError('LLM planner: fallback planner is required');
  if (!options.logger) throw new TypeError('LLM planner: logger is required');
  const { fallback, logger } = options;
  const drafts = createDraftReader();

  return {
    async plan(request: PlanRequest): Promise<PlanResult> {
      request.signal?.throwIfAborted();
      // The draft is read here, against its schema (the recogniser passed it on unread), then checked against the registry.
      const draft = drafts.read(request.draft);
      if (draft === undefined) return fallback.plan(request);
      const { result, corrections } = planFromDraft(draft, request);
      if (!result) return fallback.plan(request);
      const dropped = Object.entries(corrections).filter(([, list]) => list.length > 0);
      if (dropped.length > 0) logger.info(Object.fromEntries(dropped), 'planner: corrected the drafted plan');
      return result;
    },
  };
}

/** Checks a validated draft against the request (see the file header); `result` is undefined when no task is left. */
export function planFromDraft(
  envelope: DraftPlanEnvelope,
  request: PlanRequest,
): { result?: PlanResult; corrections: DraftCorrections } {
  const { snapshot } = request;
  const corrections: DraftCorrections = { droppedAgents: [], droppedDependencies: [], droppedKeys: [], droppedValues: [], outOfClauseValues: [] };
  const draftTasks = envelope.task_plan.sub_tasks;

  // Agents: enabled ones, one task each, in draft order; then intents the draft forgot.
  const byAgent = new Map<string, DraftSubTask>();
  const agentOfDraftTask = new Map<string, string>();
  draftTasks.forEach((task, index) => {
    const agentId = resolveAgentId(snapshot, task.assigned_agent);
    if (!agentId) {
      corrections.droppedAgents.push(task.assigned_agent);
      return;
    }
    if (task.task_id && !agentOfDraftTask.has(task.task_id)) agentOfDraftTask.set(task.task_id, agentId);
    if (!agentOfDraftTask.has(`task_${index + 1}`)) agentOfDraftTask.set(`task_${index + 1}`, agentId);
    if (!byAgent.has(agentId)) byAgent.set(agentId, task);
  });
  for (const intent of request.intents) {
    const card = snapshot.byId.get(intent.agentId);
    if (card?.enabled && !byAgent.has(card.id)) byAgent.set(card.id, { assigned_agent: card.id, description: '', inputs: {}, dependencies: [] });
  }
  const cards = [...byAgent.keys()].map((agentId) => snapshot.byId.get(agentId)!) as AgentCard[];
  if (cards.length === 0) return { corrections };

  // The offline view of the same agents, each read from its own clause: extracted keys, slot memory, invalid values.
  const texts = readPlanTexts(request, cards);
  const offline = buildSubTasks(cards, { ...request, intents: withClauses(cards, request.query, texts.query.clauses, request) }, texts);
  const offlineByAgent = new Map(offline.tasks.map((task) => [task.assigned_agent, task]));
  // The user's own words decide first where the model's rewrite is not what the user typed.
  const userWords = userClauseValues(cards, request, texts);
  const evidence = conversationEvidence(envelope, request);
  const taskIdOf = new Map(cards.map((card, index) => [card.id, `${request.planId}_task_${index + 1}`]));
  const modelKeys = new Map<string, Set<string>>();

  const tasks: SubTask[] = cards.map((card) => {
    const draftTask = byAgent.get(card.id)!;
    const offlineTask = offlineByAgent.get(card.id)!;
    const inputs: Record<string, unknown> = { ...offlineTask.inputs };
    const droppedHere: Primitive[] = [];
    // Values read from the rewrite keep to the agent's clause of the rewrite; the user's text may still place them elsewhere.
    for (const [key, value] of Object.entries(inputs)) {
      if (!isPrimitive(value) || userVerdict(value, key, card, userWords?.get(card.id), request) !== false) continue;
      corrections.outOfClauseValues.push(`${card.id}.${key}=${JSON.stringify(value)}`);
      droppedHere.push(value);
      delete inputs[key];
    }
    // What the user's own words for the agent give fills what is still missing (a rewrite may have lost or moved it).
    const userOwn = userWords?.get(card.id);
    if (userOwn) {
      const read = { ...extractOptionalInputs(userOwn.text, card, request.now), ...userOwn.extraction.values };
      for (const [key, value] of Object.entries(read)) if (inputs[key] === undefined && !userOwn.extraction.invalid.some((item) => item.key === key)) inputs[key] = value;
    }
    const allowed = allowedKeys(card);
    for (const [key, value] of Object.entries(draftTask.inputs ?? {})) {
      if (!allowed.has(key)) {
        corrections.droppedKeys.push(`${card.id}.${key}`);
        continue;
      }
      if (value === null || value === undefined || value === '') continue;
      const spec = card.requiredKeys.find((candidate) => candidate.key === key);
      if (!isPrimitive(value) || !isGrounded(value, spec, evidence, request.now)) {
        corrections.droppedValues.push(`${card.id}.${key}=${JSON.stringify(value)}`);
        if (isPrimitive(value)) droppedHere.push(value);
        continue;
      }
      if (!keepsToClause(value, key, card, offline.attributed.get(card.id)!, userWords?.get(card.id), request)) {
        corrections.outOfClauseValues.push(`${card.id}.${key}=${JSON.stringify(value)}`);
        droppedHere.push(value);
        continue;
      }
      inputs[key] = value;
      if (!modelKeys.has(card.id)) modelKeys.set(card.id, new Set());
      modelKeys.get(card.id)!.add(key);
    }
    // Model edges the cards allow, mapped from draft task ids (or agent ids) to agents.
    const dependsOn = new Set<string>();
    for (const dependency of draftTask.dependencies ?? []) {
      const upstream = agentOfDraftTask.get(dependency) ?? resolveAgentId(snapshot, dependency);
      if (upstream && upstream !== card.id && card.dependsOn.includes(upstream) && taskIdOf.has(upstream)) dependsOn.add(upstream);
      else corrections.droppedDependencies.push(`${card.id}→${dependency}`);
    }
    for (const upstream of card.dependsOn) if (taskIdOf.has(upstream)) dependsOn.add(upstream);
    // The draft's description is the model's words too: when it states a value that was dropped, the user's own words describe the task.
    const modelDescription = draftTask.description.trim();
    // A parked task answered this turn keeps its own request in front of the answer (as the offline planner words it).
    const parkedDescription = request.memory.pending.find((task) => task.agent_id === card.id)?.description.trim();
    const userWordsNow = userOwn?.text || request.turnQuery?.trim() || '';
    const userDescription = parkedDescription ? joinWords(parkedDescription, userWordsNow) : userWordsNow || offlineTask.description;
    const statesDropped =
      droppedHere.some((value) => squash(modelDescription).includes(squash(String(value)))) || statesUngrounded(modelDescription, card, evidence, request.now);
    return {
      task_id: taskIdOf.get(card.id)!,
      description: modelDescription && !statesDropped ? modelDescription : modelDescription || statesUngrounded(offlineTask.description, card, evidence, request.now) ? userDescription : offlineTask.description,
      assigned_agent: card.id,
      inputs,
      dependencies: [...dependsOn].map((agentId) => taskIdOf.get(agentId)!),
      status: 'pending',
    };
  });

  if (findCycle(tasks)) {
    for (const task of tasks) {
      const card = snapshot.byId.get(task.assigned_agent)!;
      task.dependencies = card.dependsOn.filter((upstream) => taskIdOf.has(upstream)).map((upstream) => taskIdOf.get(upstream)!);
    }
    if (findCycle(tasks)) for (const task of tasks) task.dependencies = [];
  }

  // Invalid values the offline reader found stay reported unless the model supplied a grounded value for that key.
  const invalidKeys: Record<string, InvalidKey[]> = {};
  for (const offlineTask of offline.tasks) {
    const list = offline.invalidKeys[offlineTask.task_id];
    const task = tasks.find((candidate) => candidate.assigned_agent === offlineTask.assigned_agent);
    if (!list || !task) continue;
    const supplied = modelKeys.get(task.assigned_agent) ?? new Set<string>();
    const remaining = list.filter((item) => !supplied.has(item.key));
    for (const item of remaining) delete task.inputs[item.key];
    if (remaining.length > 0) invalidKeys[task.task_id] = remaining.map((item) => ({ ...item }));
  }

  // Several values the user joined for one key: a read-only task per value, a side effect asked which (as offline, planning/several-values.ts).
  const userWordsOf = (agentId: string): string | undefined => {
    const own = userWords ? userWords.get(agentId) : offline.attributed.get(agentId);
    return own?.scope === 'clause' ? own.text : undefined;
  };
  const several = splitSeveralValues({ tasks, cardOf: (agentId) => snapshot.byId.get(agentId), textOf: userWordsOf, invalidKeys, planId: request.planId, now: request.now });
  const ordered = topologicalOrder(several.tasks);
  const reasoning = envelope.task_plan.reasoning?.trim() || `drafted with the intents: ${cards.map((card) => card.name).join('、')}`;
  return { result: { plan: assemblePlan(request.planId, ordered, reasoning, ''), invalidKeys: several.invalidKeys }, corrections };
}

function allowedKeys(card: AgentCard): Set<string> {
  const keys = new Set(card.requiredKeys.map((spec) => spec.key));
  for (const property of Object.keys((card.inputSchema?.properties as Record<string, unknown> | undefined) ?? {})) keys.add(property);
  return keys;
}

function isPrimitive(value: unknown): value is Primitive {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

interface Evidence {
  /** Everything the user said or the supervisor remembers, NFKC, lower case, without spaces. */
  text: string;
  /** The same texts as they were, for the date and number readers. */
  sources: string[];
}

/**
 * What the user said this session, and values kept from it: what the user
 * typed this turn and in earlier turns, parked inputs and slot memory. Never
 * the model's rewrite of a query (`request.query`, the rewritten query of this
 * or an earlier turn): a value found only there is the model's, not the user's.
 */
function conversationEvidence(envelope: DraftPlanEnvelope, request: PlanRequest): Evidence {
  const sources = [envelope.query, request.turnQuery ?? ''];
  for (const turn of request.memory.history) sources.push(turn.query);
  for (const task of request.memory.pending) for (const value of Object.values(task.inputs)) if (isPrimitive(value)) sources.push(String(value));
  for (const value of Object.values(request.memory.known_values)) sources.push(String(value));
  const cleaned = sources.filter((source) => typeof source === 'string' && source.length > 0);
  return { text: squash(cleaned.join('\n')), sources: cleaned.map((source) => source.normalize('NFKC')) };
}

function squash(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, '');
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** True when the conversation supports `value` (see the file header). */
function isGrounded(value: Primitive, spec: SemanticKeySpec | undefined, evidence: Evidence, now: Date): boolean {
  if (typeof value === 'boolean') return true;
  const text = String(value);
  if (squash(text).length > 0 && evidence.text.includes(squash(text))) return true;
  if (ISO_DATE.test(text) || spec?.extract.type === 'date') {
    return evidence.sources.some((source) => findDates(source, now).some((hit) => hit.value === text));
  }
  if (typeof value === 'number' || /^-?\d+(?:\.\d+)?$/.test(text)) {
    const number = Number(text);
    if (evidence.sources.some((source) => (source.match(/-?\d+(?:\.\d+)?/g) ?? []).some((found) => Number(found) === number))) return true;
    if (spec?.extract.type === 'number') return evidence.sources.some((source) => { const outcome = extractOne(source, spec.extract, now); return outcome !== null && 'value' in outcome && outcome.value === number; });
  }
  return false;
}

/**
 * Whether a drafted description states a value the conversation does not
 * support: a date, a number or one of the card's enum values found in it but
 * not in what the user said. Such a description would hand a sub-agent (and
 * the confirmation shown to the user) a value the user never gave.
 */
function statesUngrounded(description: string, card: AgentCard, evidence: Evidence, now: Date): boolean {
  if (description.length === 0) return false;
  let rest = description.normalize('NFKC');
  for (const hit of findDates(rest, now)) {
    if (hit.value && !isGrounded(hit.value, undefined, evidence, now)) return true;
    rest = rest.slice(0, hit.start) + ' '.repeat(hit.end - hit.start) + rest.slice(hit.end);
  }
  for (const number of rest.match(/\d+(?:\.\d+)?/g) ?? []) if (!isGrounded(number, undefined, evidence, now)) return true;
  const squashed = squash(rest);
  for (const spec of card.requiredKeys) {
    for (const option of spec.extract.type === 'enum' ? spec.extract.values : []) {
      const written = squash(String(option));
      if (written.length > 0 && squashed.includes(written) && !evidence.text.includes(written)) return true;
    }
  }
  return false;
}

/**
 * The draft's agents with the clause of `text` that asked for each: the
 * clause the recogniser found for the agent (it read the user's text once for
 * the turn; the planner does not rank it again), else the clause that names
 * the agent's request (a keyword or its name; the model recognised it where the
 * offline reading did not), else none.
 */
function withClauses(cards: readonly AgentCard[], text: string, clauses: readonly ReadClause[], request: PlanRequest): RankedIntent[] {
  const squashed = squash(text);
  const found = new Map(request.intents.filter((intent) => intent.clause && squashed.includes(squash(intent.clause))).map((intent) => [intent.agentId, intent.clause!]));
  return cards.map((card) => {
    const clause = found.get(card.id) ?? clauses.find((candidate) => requestWordOf(candidate, card.id) !== undefined)?.text;
    return clause ? { agentId: card.id, score: 1, clause } : { agentId: card.id, score: 1 };
  });
}

/** Each agent's words in what the user typed this turn, when the rewritten query is not that text (else undefined). */
function userClauseValues(cards: readonly AgentCard[], request: PlanRequest, texts: PlanTexts): Map<string, AgentClauseValues> | undefined {
  const typed = request.turnQuery ?? '';
  if (!texts.turn || squash(typed).length === 0 || squash(typed) === squash(request.query)) return undefined;
  // The turn's reading split the user's text once (`plan-texts.ts`).
  return attributeClauseValues({
    text: texts.turn,
    intents: withClauses(cards, typed, texts.turn.clauses, request),
    cards,
    pendingAgents: request.memory.pending.map((task) => task.agent_id),
    now: request.now,
  });
}

/**
 * What the user's own words say of a value for this agent: true when they
 * state it in the agent's part (or it is the agent's parked or inherited
 * value), false when they state it only elsewhere, undefined when they do not
 * state it (or the rewrite is what the user typed).
 */
function userVerdict(value: Primitive, key: string, card: AgentCard, own: AgentClauseValues | undefined, request: PlanRequest): boolean | undefined {
  if (!own || typeof value === 'boolean') return undefined;
  const pending = request.memory.pending.find((task) => task.agent_id === card.id);
  if (own.inherited[key] === value || (pending && pending.inputs[key] === value)) return true;
  const spec = card.requiredKeys.find((candidate) => candidate.key === key);
  if ([own.text, pending?.description ?? ''].some((text) => mentions(text, value, spec, request.now))) return true;
  return mentions(request.turnQuery ?? '', value, spec, request.now) ? false : undefined;
}

/**
 * Whether a drafted value keeps to the agent's own words: found there (its
 * clause group, or the answer to its parked question), inherited by the clause
 * rule, or part of its parked task. A value the query holds only elsewhere is
 * another request's. A value not in the query at all (history, slot memory, a
 * translation) is left to `isGrounded`, except for an agent with side effects
 * that was not parked waiting for the user.
 */
function keepsToClause(value: Primitive, key: string, card: AgentCard, own: AgentClauseValues, userOwn: AgentClauseValues | undefined, request: PlanRequest): boolean {
  if (typeof value === 'boolean') return true;
  const user = userVerdict(value, key, card, userOwn, request);
  if (user !== undefined) return user;
  const pending = request.memory.pending.find((task) => task.agent_id === card.id);
  if (own.inherited[key] === value || (pending && pending.inputs[key] === value)) return true;
  const spec = card.requiredKeys.find((candidate) => candidate.key === key);
  const ownWords = [own.text, pending?.description ?? ''];
  if (ownWords.some((text) => mentions(text, value, spec, request.now))) return true;
  const query = [request.query, request.turnQuery ?? ''];
  if (query.some((text) => mentions(text, value, spec, request.now))) return false;
  return !card.sideEffects || pending !== undefined;
}

/** Whether `text` states `value`: as written, or (dates) a date expression the date reader turns into it. */
function mentions(text: string, value: string | number, spec: SemanticKeySpec | undefined, now: Date): boolean {
  if (text.length === 0) return false;
  const written = squash(String(value));
  if (written.length > 0 && squash(text).includes(written)) return true;
  if (ISO_DATE.test(String(value)) || spec?.extract.type === 'date') return findDates(text.normalize('NFKC'), now).some((hit) => hit.value === String(value));
  return false;
}
