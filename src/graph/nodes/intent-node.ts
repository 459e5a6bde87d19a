/**
 * Intent recognition and rewrite with short-term memory. Emits intent_start
 * and intent_done; the recognizer (offline matcher or LLM) decides the turn kind.
 */
import { composeIntentMessage, type IntentRecognizer, type IntentResult } from '../../intent/index.js';
import { eventWriter, turnContext, type NodeConfig, type TurnContext } from '../context.js';
import { askAgainText, intentStartText } from '../../i18n/index.js';
import { announcesEarly, requestWordOf, type QueryReading } from '../../understanding/index.js';
import { renderSummary } from '../memory/layered-summary.js';
import { renderProfile } from '../memory/profile-facts.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';
import { maskForSnapshot } from '../../privacy/index.js';
import { createTurnMeaning, type SemanticIndex } from '../../embeddings/index.js';

export function createIntentNode(dependencies: { recognizer: IntentRecognizer; semantic?: SemanticIndex }) {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const emit = eventWriter(config);
    if (!announcesEarly(context.message)) emit({ stage: 'intent_start', content: intentStartText(context.language), agent_id: 'supervisor', is_thinking: true });
    // Memory blocks of prompts carry personal data masked (docs/api.md#personal-data); stored memory already is, this holds whatever the source.
    const masker = maskForSnapshot(context.snapshot);
    // The turn read the message once; the control node chose the reading for the session (a correction's yes/no word set aside).
    const reading = state.reading ?? context.message.asRequest;
    // Its meaning is read at most once, by the first step that needs it (recogniser, pre-selection, answer cache).
    if (dependencies.semantic && reading.normalizedQuery.length > 0) {
      context.meaning = createTurnMeaning(dependencies.semantic, reading.normalizedQuery, context.snapshot, context.signal);
    }
    // The answer to the last clarification: its message goes to the chosen agent, as if it had been routed there.
    const recognized = state.clarified ? chosenIntent(state, context) : await dependencies.recognizer.recognize({
      query: reading.act === 'correction' ? reading.normalizedQuery : state.query,
      normalizedQuery: reading.normalizedQuery,
      clauses: reading.clauses,
      language: context.language,
      history: masker.maskDeep(state.memory.history),
      profile: masker.mask(renderProfile(state.profile, context.now)),
      summary: masker.mask(renderSummary(state.memory.summary, (agentId) => context.snapshot.byId.get(agentId)?.name ?? agentId)),
      snapshot: context.snapshot,
      pendingAgents: state.memory.pending.map((task) => task.agent_id).filter((id) => context.snapshot.byId.get(id)?.enabled === true),
      signal: context.signal,
      usage: context.usage,
      now: context.now,
      ...(context.meaning ? { meaning: context.meaning } : {}),
    });
    const intent = withoutExpired(recognized, state.expired_agents, reading, context);
    emit({
      stage: 'intent_done',
      content: intent.userFriendlyMessage,
      agent_id: 'supervisor',
      is_thinking: true,
      state: {
        kind: intent.kind,
        intents: intent.intents.map((item) => item.agentId),
        confidence: intent.confidence,
        rewritten_query: intent.rewrittenQuery,
        // A correction of parked or held values is marked, so replay and review can find the turns where the user put us right.
        ...(reading.act === 'correction' ? { act: 'correction' } : {}),
      },
    });
    return {
      intent,
      rewritten_query: intent.rewrittenQuery || state.query,
      execution_path: [...state.execution_path, 'intent'],
    };
  };
}

/** The intent of a turn that chose an option of the last clarification: the chosen agent, the message it was about. */
function chosenIntent(state: SupervisorState, context: TurnContext): IntentResult {
  const chosen = state.clarified!;
  const card = context.snapshot.byId.get(chosen.agent_id);
  return {
    kind: 'business',
    intents: [{ agentId: chosen.agent_id, score: 1 }],
    confidence: 'high',
    reason: `chosen from the clarification (${chosen.option_id})`,
    rewrittenQuery: chosen.query,
    asTyped: true,
    userFriendlyMessage: composeIntentMessage(card ? [card] : [], context.language),
  };
}

/**
 * The intent without agents whose parked task expired at the start of this
 * turn, unless the message names their request anew: an expired task is gone,
 * and a follow-up or an answer (whichever recogniser read it, the model
 * included) does not bring it back. With nothing left the user is asked to say
 * the request again.
 */
function withoutExpired(intent: IntentResult, expiredAgents: readonly string[], reading: QueryReading, context: TurnContext): IntentResult {
  if (intent.kind !== 'business' || expiredAgents.length === 0) return intent;
  // The reading found the request words of every agent of the snapshot in each clause.
  const namedAnew = (agentId: string) => reading.clauses.some((clause) => requestWordOf(clause, agentId) !== undefined);
  const gone = new Set(intent.intents.map((item) => item.agentId).filter((agentId) => expiredAgents.includes(agentId) && !namedAnew(agentId)));
  if (gone.size === 0) return intent;
  const intents = intent.intents.filter((item) => !gone.has(item.agentId));
  if (intents.length === 0) {
    const answer = askAgainText(context.language);
    return { ...intent, kind: 'simple', simpleKind: 'out_of_scope', intents: [], answer, userFriendlyMessage: answer, draftPlan: undefined, reason: `${intent.reason}; expired: ${[...gone].join(', ')}` };
  }
  const draftPlan = intent.draftPlan ? { ...intent.draftPlan, withoutAgents: [...(intent.draftPlan.withoutAgents ?? []), ...gone] } : undefined;
  return { ...intent, intents, ...(draftPlan ? { draftPlan } : {}) };
}

/** Where the turn goes after intent recognition. */
export function routeAfterIntent(state: SupervisorState): 'direct_answer' | 'plan' | 'escalate' {
  const intent = state.intent;
  if (!intent) return state.escalation ? 'escalate' : 'direct_answer';
  if (intent.kind === 'escalate' || state.escalation) return 'escalate';
  if (intent.kind === 'business' && intent.intents.length > 0) return 'plan';
  return 'direct_answer';
}
