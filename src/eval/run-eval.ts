/**
 * Runs a labelled set through the same recogniser and planner the server
 * uses, with no HTTP and no sub-agents. A line with `session` first plays its
 * earlier queries in a fresh in-memory session: each turn is recognised and
 * planned, and short-term memory is updated as the graph does at the end of a
 * turn (tasks still missing keys are parked, the others count as answered),
 * so a follow-up sees the previous turn's agents and parked tasks.
 */
import { performance } from 'node:perf_hooks';
import { emptyMemory, memoryAfterBusinessTurn, rememberTurn, type SessionMemory } from '../graph/index.js';
import { checkKeyValue, type Planner, type TaskOutcome } from '../planning/index.js';
import type { CardPreselector, IntentRecognizer, IntentResult } from '../intent/index.js';
import { createLlmUsage } from '../llm/index.js';
import type { RegistrySnapshot } from '../registry/index.js';
import { readTurnQuery, type QueryReading } from '../understanding/index.js';
import type { EvalCase } from './eval-set.js';
import type { NearestBaseline } from './nearest-baseline.js';
import { createTurnMeaning, type SemanticIndex } from '../embeddings/index.js';

/** What the supervisor decided for one labelled line. */
export interface EvalOutcome {
  case: EvalCase;
  /** Routed agent ids, best first (empty when the turn was not routed). */
  predicted: string[];
  /** Agent ids of the options a clarification offered (instead of a route, or for a part of the message beside the routed requests); empty when the turn did not ask. */
  offered?: string[];
  kind: IntentResult['kind'];
  /** Planned inputs per routed agent (only when the line gives `inputs`). */
  inputs: Record<string, Record<string, unknown>>;
  /** Cards the pre-selector would show the model for this line. */
  preselected: string[];
  /** Time spent in the recogniser for the labelled query, ms. */
  latencyMs: number;
  /** Which level decided the labelled query in LLM mode (word rules, cache, model, offline after a model failure). */
  source?: IntentResult['source'];
  /** The nearest-example baseline's agent for the labelled query alone (when a baseline was given). */
  baseline?: string;
  /** The linear n-gram classifier's agent for the labelled query alone (when one was given). */
  linear?: string;
}

/** What `runEval` needs: the strategies chosen as the server chooses them. */
export interface RunEvalOptions {
  snapshot: RegistrySnapshot;
  recognizer: IntentRecognizer;
  planner: Planner;
  preselector: CardPreselector;
  /** "Today" for relative dates. Default: now. */
  now?: Date;
  /** The peer to compare with (`nearest-baseline.ts`); it sees the labelled query only. */
  baseline?: NearestBaseline;
  /** The second peer (`linear-baseline.ts`), answering the same way. */
  linear?: NearestBaseline;
  /** Word meaning for pre-selection and the recogniser, read once per labelled line; absent: lexical pre-selection. */
  semantic?: SemanticIndex;
  /** Called after each line (progress for long sets). */
  onOutcome?: (outcome: EvalOutcome, index: number) => void;
}

/** Runs every case in order and returns one outcome per case. */
export async function runEval(cases: readonly EvalCase[], options: RunEvalOptions): Promise<EvalOutcome[]> {
  const outcomes: EvalOutcome[] = [];
  for (const [index, item] of cases.entries()) {
    const outcome = await runCase(item, options);
    outcomes.push(outcome);
    options.onOutcome?.(outcome, index);
  }
  return outcomes;
}

async function runCase(item: EvalCase, options: RunEvalOptions): Promise<EvalOutcome> {
  const { snapshot } = options;
  const now = options.now ?? new Date();
  let memory = emptyMemory();
  for (const [turn, query] of item.session.entries()) {
    memory = (await playTurn(query, memory, options, now, `eval_${item.line}_${turn}`)).memory;
  }
  const pendingAgents = pendingOf(memory, snapshot);
  const read = readTurnQuery(item.query, snapshot);
  // The line's meaning is read once, as a turn reads it: for the pre-selection here and for the recogniser.
  const meaning = options.semantic ? createTurnMeaning(options.semantic, read.normalizedQuery, snapshot) : undefined;
  const semantic = (await meaning?.read())?.scores;
  const preselected = options.preselector.select({ query: read, history: memory.history, pendingAgents, snapshot, ...(semantic ? { semantic } : {}) }).cards.map((card) => card.id);
  const started = performance.now();
  const intent = await options.recognizer.recognize({ ...read, history: memory.history, snapshot, pendingAgents, usage: createLlmUsage(), now, ...(meaning ? { meaning } : {}) });
  const latencyMs = performance.now() - started;
  const predicted = intent.kind === 'business' ? [...new Set(intent.intents.map((found) => found.agentId))] : [];
  // A clarification's options, or those offered for a part of the message beside the routed requests.
  const offered = (intent.clarification ?? intent.askAbout?.clarification)?.options.map((option) => option.sub_agent_id) ?? [];
  const inputs: Record<string, Record<string, unknown>> = {};
  if (Object.keys(item.inputs).length > 0 && predicted.length > 0) {
    const planned = await plan(intent, read, memory, options, now, `eval_${item.line}`);
    for (const task of planned) inputs[task.assigned_agent] = task.inputs;
  }
  const baseline = options.baseline?.(item.query);
  const linear = options.linear?.(item.query);
  return {
    case: item,
    predicted,
    offered,
    kind: intent.kind,
    inputs,
    preselected,
    latencyMs,
    ...(intent.source ? { source: intent.source } : {}),
    ...(options.baseline ? { baseline } : {}),
    ...(options.linear ? { linear } : {}),
  };
}

async function playTurn(query: string, memory: SessionMemory, options: RunEvalOptions, now: Date, planId: string): Promise<{ memory: SessionMemory }> {
  const { snapshot } = options;
  const read = readTurnQuery(query, snapshot);
  const intent = await options.recognizer.recognize({ ...read, history: memory.history, snapshot, pendingAgents: pendingOf(memory, snapshot), usage: createLlmUsage(), now });
  const agents = intent.kind === 'business' ? [...new Set(intent.intents.map((found) => found.agentId))] : [];
  const turn = { query, rewrittenQuery: intent.rewrittenQuery || query, answer: '', agents };
  if (agents.length === 0) {
    return { memory: { ...memory, history: rememberTurn(memory, turn, snapshot.supervisor.memoryMaxHistory) } };
  }
  const tasks = await plan(intent, read, memory, options, now, planId);
  const outcomes: Record<string, TaskOutcome> = {};
  for (const task of tasks) {
    const card = snapshot.byId.get(task.assigned_agent);
    const missing = (card?.requiredKeys ?? []).filter((spec) => checkKeyValue(spec.extract, task.inputs[spec.key]) !== null).map((spec) => spec.key);
    outcomes[task.task_id] = { task_id: task.task_id, agent_id: task.assigned_agent, status: missing.length > 0 ? 'parked' : 'completed', missing_keys: missing };
  }
  return { memory: memoryAfterBusinessTurn({ memory, turn, tasks, outcomes, snapshot }) };
}

/** The line's plan, made as a turn makes it: from the line's reading, which is the query's too when the recogniser kept the line's words. */
async function plan(intent: IntentResult, reading: QueryReading, memory: SessionMemory, options: RunEvalOptions, now: Date, planId: string) {
  const result = await options.planner.plan({
    query: intent.rewrittenQuery,
    reading,
    ...(intent.asTyped ? { queryIsTyped: true } : {}),
    intents: intent.intents,
    ...(intent.draftPlan ? { draft: intent.draftPlan } : {}),
    snapshot: options.snapshot,
    memory,
    now,
    planId,
    signal: new AbortController().signal,
    usage: createLlmUsage(),
  });
  return result.plan.sub_tasks;
}

function pendingOf(memory: SessionMemory, snapshot: RegistrySnapshot): string[] {
  return memory.pending.map((task) => task.agent_id).filter((agentId) => snapshot.byId.get(agentId)?.enabled === true);
}
