/**
 * Conversation control, before intent recognition (seed 000's pre-step, seed
 * 001's timeout and "取消"):
 * 1. parked tasks older than `pending_ttl_s` expire;
 * 2. a confirmation — body fields `confirm` / `reject` with task ids, or a
 *    message that is only a yes / no word while tasks await confirmation —
 *    runs exactly the confirmed tasks (straight to execute) or answers;
 *    ids that await nothing (handled, expired, forged) never run anything,
 *    and a task whose agent a registry edit removed or disabled is cancelled;
 * 3. a message that is only a cancel word drops every parked task; one that is
 *    only a yes / no word with nothing parked is told nothing awaits it;
 * 4. a strongly negative message is marked for escalation after intent.
 * Anything else goes on to intent recognition with the live parked tasks.
 */
import type { EmotionScorer } from '../../escalation/index.js';
import type { RegistrySnapshot } from '../../registry/index.js';
import { planFromConfirmed } from '../control/confirmation.js';
import { checkKeyValue } from '../../planning/index.js';
import { readClarificationAnswer } from '../control/clarification-answer.js';
import { askAgainText, unknownChoiceText, confirmedPlanStartText, noticeText, nothingToCancelText, nothingToConfirmText, replyReadText, runningConfirmedText, unknownConfirmationText } from '../../i18n/index.js';
import { parkedTaskLabels } from '../control/notices.js';
import { eventWriter, turnContext, type NodeConfig } from '../context.js';
import { rememberTurn } from '../memory/memory.js';
import type { PendingTask, SessionMemory, SupervisorState, SupervisorUpdate } from '../state.js';
import { newPlanId } from './plan-node.js';
import { announcesEarly, hasNoLanguage, readingInSession, readMessage, readSelectiveReply, type HeldTaskNames } from '../../understanding/index.js';
import { readAsAnswer } from '../../planning/index.js';
import { detectLanguage, extractOne } from '../../text/index.js';

export interface ControlDependencies {
  emotion: EmotionScorer;
}

/** Default of `supervisor.pending_ttl_s` for snapshots built without it. */
const DEFAULT_PENDING_TTL_S = 600;

/** Splits parked tasks into live and expired at `now`; a task without a parking time never expires. */
export function expireParked(pending: readonly PendingTask[], now: Date, ttlSeconds: number): { live: PendingTask[]; expired: PendingTask[] } {
  const live: PendingTask[] = [];
  const expired: PendingTask[] = [];
  for (const task of pending) {
    const parkedAt = task.parked_at ? Date.parse(task.parked_at) : Number.NaN;
    (Number.isFinite(parkedAt) && now.getTime() - parkedAt > ttlSeconds * 1000 ? expired : live).push(task);
  }
  return { live, expired };
}

export function createControlNode(dependencies: ControlDependencies) {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const send = eventWriter(config);
    // The runner's early intent_start is closed before the first event of a turn this node answers or runs itself.
    let intentOpen = announcesEarly(context.message);
    const emit: typeof send = (event) => {
      if (intentOpen) {
        intentOpen = false;
        send({ stage: 'intent_done', content: replyReadText(context.language), agent_id: 'supervisor', is_thinking: true });
      }
      send(event);
    };
    const { snapshot } = context;
    const ttlSeconds = snapshot.supervisor.pendingTtlS ?? DEFAULT_PENDING_TTL_S;
    const { live, expired } = expireParked(state.memory.pending, context.now, ttlSeconds);
    const awaiting = live.filter((task) => task.confirmation && task.task_id);
    // The turn read the message; here, where the session is known, its reading is chosen (an id-only message keeps the
    // session's language; a yes/no word that goes on corrects open tasks).
    const reading = readingInSession(context.message, { sessionLanguage: sessionLanguage(state.memory), openTasks: live.length > 0 });
    // Only a message with no words of a language takes one from the session: a body-only confirmation or choice
    // answers in the parked task's (or the clarification's) language.
    if (reading.normalizedQuery === '') {
      const language = [...awaiting, ...expired].find((task) => task.confirmation)?.confirmation?.language ?? state.memory.clarification?.language ?? (state.choose !== null ? sessionLanguage(state.memory) : undefined);
      if (language) context.language = language;
    } else if (!context.message.hasLanguage) {
      context.language = reading.language;
    }
    const { language } = context;
    const notices = expired.length > 0 ? [noticeText('expired', parkedTaskLabels(expired, snapshot, language), language, ttlSeconds)] : [];
    // An expired task is gone: the turn that asked for it no longer carries its agent into a follow-up.
    // The last clarification is answered or dropped by this turn, whatever it says.
    const { clarification: asked, ...kept } = state.memory;
    const memory: SessionMemory = { ...kept, pending: live, history: withoutExpiredAgents(state.memory.history, expired, live) };
    const path = [...state.execution_path, 'control'];

    const reply = (lines: string[], pending: PendingTask[]): SupervisorUpdate => {
      const answer = lines.join('\n');
      emit({ stage: 'final', content: answer, agent_id: 'supervisor', is_thinking: false, state: { delta: false, kind: 'control' } });
      return {
        final_answer: answer,
        execution_path: path,
        memory: {
          ...memory,
          pending,
          history: rememberTurn(memory, { query: state.query, rewrittenQuery: state.query, answer, agents: [] }, snapshot.supervisor.memoryMaxHistory),
        },
      };
    };

    // "好的，确认" is a yes; "好的，不过改成上海" is a correction and confirms nothing.
    const word = reading.replyWord;

    // The answer to the last clarification: the chosen agent handles the message it was about (intent node).
    const answer = readClarificationAnswer({ pending: asked, choose: state.choose, text: context.message.asRequest.normalizedQuery, yes: word === 'yes' && awaiting.length === 0, snapshot, now: context.now, ttlSeconds });
    if (answer.kind === 'chosen') {
      return {
        memory,
        notices,
        // The message the clarification was about (stored), read now that it runs.
        reading: readingInSession(readMessage(answer.chosen.query, snapshot), { sessionLanguage: language, openTasks: live.length > 0 }),
        clarified: answer.chosen,
        expired_agents: [...goneAgents(expired, live)],
        execution_path: path,
        escalation: null,
      };
    }
    // A `choose` the last clarification did not offer runs nothing; with words beside it, they are a new request.
    if (answer.kind === 'unknown_choice' && state.query.trim() === '') return reply([...notices, unknownChoiceText(language)], live);
    const byFields = state.confirm.length > 0 || state.reject.length > 0;
    let confirmIds: string[] = [];
    let rejectIds: string[] = [];
    // "充值确认，宽带不要了": a yes or no for each held task the message names.
    const selective = !byFields && !word ? readSelectiveReply(context.message.asRequest.normalizedQuery, heldTaskNames(awaiting, snapshot)) : undefined;
    if (selective) {
      confirmIds = selective.confirm;
      rejectIds = selective.reject;
    } else if (byFields) {
      rejectIds = [...new Set(state.reject)];
      confirmIds = [...new Set(state.confirm)].filter((id) => !rejectIds.includes(id));
    } else if (word === 'cancel') {
      if (live.length === 0) return reply([...notices, ...(notices.length ? [] : [nothingToCancelText(language)])], []);
      return reply([...notices, noticeText('cancelled', parkedTaskLabels(live, snapshot, language), language)], []);
    } else if (word && awaiting.length > 0) {
      (word === 'yes' ? confirmIds : rejectIds).push(...awaiting.map((task) => task.task_id!));
    } else if (word === 'yes' && expired.some((task) => task.confirmation)) {
      return reply([...notices, askAgainText(language)], live);
    } else if ((word === 'yes' || word === 'no') && live.length === 0 && expired.length === 0) {
      // "确认" / "no" with nothing parked or held: nothing to run and nothing to route (no model call either).
      return reply([...notices, nothingToConfirmText(language)], live);
    } else if (!word && answersOnlyExpired(reading.normalizedQuery, expired, snapshot, context.now)) {
      // An expired task is gone: an answer to its question ("订单号：A1001") does not bring it back.
      return reply([...notices, askAgainText(language)], live);
    }

    if (confirmIds.length === 0 && rejectIds.length === 0) {
      // The whole message in the reading's normal form (a correction's yes/no word may carry the feeling too).
      const emotion = dependencies.emotion.score(context.message.asRequest.normalizedQuery, snapshot.supervisor.escalation);
      const threshold = snapshot.supervisor.escalation?.emotionThreshold ?? 2.5;
      return {
        memory,
        notices,
        reading,
        expired_agents: [...goneAgents(expired, live)],
        execution_path: path,
        escalation: emotion.score >= threshold ? { reason: 'emotion', words: emotion.words } : null,
      };
    }

    const awaitingById = new Map(awaiting.map((task) => [task.task_id!, task]));
    const expiredIds = new Set(expired.map((task) => task.task_id).filter((id): id is string => id !== undefined));
    const pick = (ids: string[]) => ids.map((id) => awaitingById.get(id)).filter((task): task is PendingTask => task !== undefined);
    const confirmed = pick(confirmIds);
    const rejected = pick(rejectIds);
    const unmatched = [...confirmIds, ...rejectIds].filter((id) => !awaitingById.has(id) && !expiredIds.has(id));
    const available = (task: PendingTask) => snapshot.byId.get(task.agent_id)?.enabled === true;
    const unavailable = confirmed.filter((task) => !available(task));
    // A registry reload since the task was held may no longer accept a value it holds (an enum value removed).
    const outdated = confirmed.filter((task) => available(task) && !fitsLiveCard(task, snapshot));
    const runnable = withWaitingDependents(confirmed.filter((task) => available(task) && !outdated.includes(task)), live, snapshot);
    const touched = new Set([...runnable, ...confirmed, ...rejected]);
    const remaining = live.filter((task) => !touched.has(task));

    if (rejected.length > 0) notices.push(noticeText('rejected', parkedTaskLabels(rejected, snapshot, language), language));
    if (unavailable.length > 0) notices.push(noticeText('unavailable', parkedTaskLabels(unavailable, snapshot, language), language));
    if (outdated.length > 0) notices.push(noticeText('outdated', parkedTaskLabels(outdated, snapshot, language), language));
    if (unmatched.length > 0) notices.push(unknownConfirmationText(language));
    if (runnable.length === 0) return reply(notices, remaining);

    const message = runningConfirmedText(parkedTaskLabels(runnable, snapshot, language), language);
    const plan = planFromConfirmed(runnable, snapshot, newPlanId(context.now), message);
    emit({ stage: 'plan_start', content: confirmedPlanStartText(language), agent_id: 'supervisor', is_thinking: true });
    emit({ stage: 'plan_done', content: message, agent_id: 'supervisor', is_thinking: true, state: { task_plan: plan, confirmed: runnable.map((task) => task.task_id) } });
    return {
      memory: { ...memory, pending: remaining },
      notices,
      task_plan: plan,
      confirm_turn: true,
      // What the confirmed tasks' upstream tasks gave in the turn that held them, sent again as their `upstream`.
      carried_upstream: Object.fromEntries(
        runnable
          .filter((task) => task.task_id && (task.upstream ?? []).length > 0)
          .map((task) => [task.task_id!, task.upstream!.map((item) => ({ task_id: item.task_id, agent_id: item.agent_id, status: 'completed' as const, output: item.output }))]),
      ),
      rewritten_query: runnable.map((task) => task.description).join(language === 'zh' ? '；' : '; '),
      execution_path: path,
    };
  };
}

/** Whether every value the held task carries for a key of its agent still passes that key's check in the live registry. */
function fitsLiveCard(task: PendingTask, snapshot: RegistrySnapshot): boolean {
  const card = snapshot.byId.get(task.agent_id);
  if (!card) return false;
  return card.requiredKeys.every((spec) => !(spec.key in task.inputs) || checkKeyValue(spec.extract, task.inputs[spec.key]) === null);
}

/**
 * The confirmed tasks plus read-only parked tasks that only waited for them
 * (no keys missing, their agent depends on a confirmed one): they run in the
 * same turn, after the task they wait for.
 */
function withWaitingDependents(confirmed: PendingTask[], live: readonly PendingTask[], snapshot: RegistrySnapshot): PendingTask[] {
  const tasks = [...confirmed];
  let added = true;
  while (added) {
    added = false;
    const agents = new Set(tasks.map((task) => task.agent_id));
    for (const task of live) {
      if (tasks.includes(task) || task.confirmation || task.missing_keys.length > 0 || !task.task_id) continue;
      const card = snapshot.byId.get(task.agent_id);
      if (card?.enabled === true && card.sideEffects !== true && card.dependsOn.some((id) => agents.has(id))) {
        tasks.push(task);
        added = true;
      }
    }
  }
  return tasks;
}

/** The language of the session's latest turn that had words of a language (an id-only turn has none). */
function sessionLanguage(memory: SessionMemory): 'zh' | 'en' | undefined {
  for (let index = memory.history.length - 1; index >= 0; index--) {
    const query = memory.history[index]!.query;
    if (query.trim() !== '' && !hasNoLanguage(query)) return detectLanguage(query);
  }
  return memory.pending.find((task) => task.confirmation)?.confirmation?.language;
}

const FILLER = /[\s\p{P}\p{S}]|那就|就是|是|吧|呢|啊|呀|的|了|it's|it is|is/giu;

/**
 * True when the message only answers the question of an expired task: once
 * the values its missing keys read from it and those keys' names are taken
 * out, nothing but punctuation and fillers is left.
 */
function answersOnlyExpired(text: string, expired: readonly PendingTask[], snapshot: RegistrySnapshot, now: Date): boolean {
  const specs = expired.flatMap((task) => (snapshot.byId.get(task.agent_id)?.requiredKeys ?? []).filter((spec) => task.missing_keys.includes(spec.key)));
  if (specs.length === 0 || text.trim() === '') return false;
  let rest = text;
  let answered = false;
  for (const spec of specs) {
    if (spec.extract.type === 'text') continue;
    const outcome = extractOne(rest, spec.extract, now);
    const raw = outcome?.raw ?? String(readAsAnswer(rest, spec, now) ?? '');
    if (raw.length === 0 || !rest.includes(raw)) continue;
    answered = true;
    rest = rest.split(raw).join(' ');
    for (const label of [spec.description, ...Object.values(spec.descriptions ?? {})]) if (label?.trim()) rest = rest.split(label.trim()).join(' ');
  }
  return answered && rest.replace(FILLER, '').length === 0;
}

/** Agents of expired tasks with no live task left. */
function goneAgents(expired: readonly PendingTask[], live: readonly PendingTask[]): Set<string> {
  return new Set(expired.map((task) => task.agent_id).filter((agentId) => !live.some((task) => task.agent_id === agentId)));
}

/** History whose turns no longer name the agents of expired tasks (unless a live task of the same agent remains). */
function withoutExpiredAgents(history: SessionMemory['history'], expired: readonly PendingTask[], live: readonly PendingTask[]): SessionMemory['history'] {
  const gone = goneAgents(expired, live);
  if (gone.size === 0) return history;
  return history.map((turn) => (turn.agents.some((agentId) => gone.has(agentId)) ? { ...turn, agents: turn.agents.filter((agentId) => !gone.has(agentId)) } : turn));
}

/** After control: run confirmed tasks, end after a direct reply, or go on to intent recognition. */
export function routeAfterControl(state: SupervisorState): 'execute' | 'recognize_intent' | '__end__' {
  if (state.task_plan) return 'execute';
  if (state.final_answer) return '__end__';
  return 'recognize_intent';
}

/** The held tasks and the words that name them (their agents' names and keywords), for a reply that names them. */
function heldTaskNames(awaiting: readonly PendingTask[], snapshot: RegistrySnapshot): HeldTaskNames[] {
  return awaiting.flatMap((task) => {
    const card = snapshot.byId.get(task.agent_id);
    return card && task.task_id ? [{ taskId: task.task_id, names: [card.name, ...Object.values(card.names ?? {}), ...card.keywords] }] : [];
  });
}
