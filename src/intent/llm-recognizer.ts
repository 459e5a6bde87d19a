/**
 * The LLM `IntentRecognizer`: three levels, cheapest first (seed 000).
 *
 * 1. Rules: requests for a human, sensitive or abusive words, and greetings /
 *    thanks / "what can you do" making up the whole message are decided by
 *    the offline word lists, with template answers: no model call.
 * 2. Cache: a high-confidence model result for the same normalised query,
 *    registry version, day and memory (see intent-cache.ts).
 * 3. Model: ONE call that recognises the intents, rewrites the query with
 *    short-term memory, drafts the task plan of a business turn and writes the
 *    answer of a simple one. A reply that does not parse or validate is
 *    retried once with the problem stated; then the offline recognizer
 *    decides the turn. A failed call (timeout, 429 or 5xx after the gateway's
 *    own retries, open circuit) goes to the offline recognizer at once.
 *
 * The reply is never trusted as is: intents and planned agents not enabled in
 * the turn's snapshot are dropped (the rest still run), texts shown to the
 * user have agent ids replaced by names, and when an intent was dropped the
 * model's message (which may promise it) is replaced by one built from the
 * cards that remain.
 */
import { Ajv } from 'ajv';
import { chooseTier, completeJson, type LlmGateway } from '../llm/index.js';
import { createPromptLeakCheck, DATA_BLOCK_RULES, formatLocalDate, hasInjectionSignals, type PromptLeakCheck } from '../text/index.js';
import { createContentGuard } from '../privacy/index.js';
import { buildIntentMessages, INTENT_PROMPT_RULES } from './llm/intent-prompt.js';
import { INTENT_REPLY_SCHEMA, type ClarifyReply, type IntentReply, type UncheckedIntentReply } from './llm/intent-schema.js';
import { buildClarification } from './clarification.js';
import { clarificationQuestionText } from '../i18n/index.js';
import { createDraftReader } from '../planning/index.js';
import type { Logger } from '../logger.js';
import { type AgentCard, type RegistrySnapshot, resolveAgentId } from '../registry/index.js';
import { createCardPreselector, type CardPreselector } from './routing/card-preselect.js';
import { composeDirectAnswer, composeIntentMessage } from './simple/direct-answers.js';
import type { IntentCache } from './intent-cache.js';
import { intentCacheKey } from './intent-cache.js';
import { createSnapshotClassifiers, type SimpleIntentLexicon } from './simple/simple-intents.js';
import type { IntentInput, IntentRecognizer, IntentResult, ModelPlan, RankedIntent } from './types.js';

/** The counter the recognizer increments when the offline path decides (structurally `Metrics.intentFallbacks`). */
export interface IntentFallbackMetrics {
  intentFallbacks: { inc(labels: { reason: string }, value?: number): void };
}

/** Dependencies and options of the LLM recognizer. */
export interface LlmRecognizerOptions {
  gateway: LlmGateway;
  /** Decides rule-path turns and every turn the model cannot (normally the offline recognizer). */
  fallback: IntentRecognizer;
  /** Level-2 cache; none = every non-rule turn calls the model. */
  cache?: IntentCache;
  logger: Logger;
  metrics?: IntentFallbackMetrics;
  /** Word lists of the rule fast path (the offline recognizer's defaults when absent). */
  lexicon?: Partial<SimpleIntentLexicon>;
  /** Above this many enabled agents the prompt shows pre-selected cards only. Default 40 (see `routing/card-preselect.ts`). */
  maxPromptCards?: number;
  /** Replaces the default pre-selector (built from `maxPromptCards`). */
  preselector?: CardPreselector;
}

const SCORE_BY_CONFIDENCE = { high: 0.9, medium: 0.7, low: 0.5 } as const;

/**
 * Whether a recognition carries a value of the profile the user did not say in
 * this turn's words (`profile` is the prompt text `key=value, key=value`).
 */
export function usesProfileValue(profile: string, query: string, result: IntentResult): boolean {
  const values = profile
    .split(/,\s*(?=[^,=\s]+=)/)
    .map((fact) => fact.slice(fact.indexOf('=') + 1).trim())
    .filter((value) => value.length > 0);
  if (values.length === 0) return false;
  const carried = JSON.stringify({ rewritten: result.rewrittenQuery, plan: result.draftPlan ?? null, answer: result.answer ?? '' });
  return values.some((value) => carried.includes(value) && !query.includes(value));
}

/** Creates the LLM recognizer. Throws a `TypeError` naming a missing dependency. */
export function createLlmRecognizer(options: LlmRecognizerOptions): IntentRecognizer {
  if (!options?.gateway || typeof options.gateway.complete !== 'function') throw new TypeError('LLM recognizer: gateway is required');
  if (!options.fallback || typeof options.fallback.recognize !== 'function') throw new TypeError('LLM recognizer: fallback recognizer is required');
  if (!options.logger) throw new TypeError('LLM recognizer: logger is required');
  const { gateway, fallback, cache, logger, metrics } = options;
  const classifierFor = createSnapshotClassifiers(options.lexicon);
  const preselector = options.preselector ?? createCardPreselector({ limit: options.maxPromptCards ?? 40 });
  const ajv = new Ajv({ allErrors: true, strict: false });
  // The intent part is checked without the plan: a usable intent with a broken
  // plan draft keeps the intent and lets the planner plan from it (no retry).
  const { task_plan: _plan, ...intentProperties } = INTENT_REPLY_SCHEMA.properties;
  const validateReply = ajv.compile<UncheckedIntentReply>({ ...INTENT_REPLY_SCHEMA, properties: intentProperties });
  const drafts = createDraftReader();
  // Texts the model writes for the user must not repeat its own instructions.
  const leakCheck = createPromptLeakCheck([INTENT_PROMPT_RULES, DATA_BLOCK_RULES]);

  async function fallBack(input: IntentInput, reason: string, detail: string): Promise<IntentResult> {
    logger.warn({ reason, detail }, 'intent: model result unusable, offline matcher decides');
    metrics?.intentFallbacks.inc({ reason });
    const result = await fallback.recognize(input);
    return { ...result, source: 'fallback' };
  }

  return {
    async recognize(input: IntentInput): Promise<IntentResult> {
      input?.signal?.throwIfAborted();
      if (!input || typeof input.query !== 'string' || !input.snapshot) return fallback.recognize(input);
      const text = input.query.trim();
      const normalized = input.normalizedQuery;

      // Level 1: word rules.
      if (normalized.length === 0 || classifierFor(input.snapshot).findOverride(normalized) || classifierFor(input.snapshot).findSmallTalk(normalized)) {
        const decided = await fallback.recognize(input);
        if (decided.kind !== 'business') {
          return { ...decided, source: 'rules', ...(decided.kind === 'simple' ? { answer: decided.userFriendlyMessage } : {}) };
        }
      }
      if (!gateway.enabled) return fallBack(input, 'disabled', 'the model gateway is disabled');

      // Level 2: cache.
      const today = input.now ?? new Date();
      const keyInput = {
        // The reading's normal form: the key is not normalised again.
        query: normalized,
        registryVersion: input.snapshot.version,
        history: input.history,
        pendingAgents: input.pendingAgents,
        day: formatLocalDate(today),
        summary: input.summary,
      };
      // A recognition that took no value from the user's profile holds for any profile (the profile's values are
      // filled in after planning anyway): it is kept under the profile-free key, so the profile a turn saves does not
      // make the same question a miss on the next turn. One that used a profile value stays the user's own.
      const key = intentCacheKey({ ...keyInput, profile: input.profile });
      const sharedKey = input.profile ? intentCacheKey(keyInput) : key;
      if (cache) {
        const cached = await cache.get(key === sharedKey ? sharedKey : [sharedKey, key]).catch((error: unknown) => {
          logger.warn({ err: error }, 'intent cache read failed');
          return undefined;
        });
        // A summary written for another session's memory is never reused; nor is a rewrite taken as this message's words.
        if (cached) {
          const { asTyped: _typed, ...hit } = cached;
          return { ...hit, memorySummary: undefined, source: 'cache' };
        }
      }

      // Level 3: one model call (plus one retry for an unusable reply).
      const history = input.history.slice(-Math.max(1, input.snapshot.supervisor.memoryMaxHistory));
      const pending = enabledCards(input.snapshot, input.pendingAgents);
      // Above the prompt's card limit, the cards closest in meaning take turns with the lexical candidates (the
      // turn's one reading of the query's meaning; a failed or slow endpoint leaves the lexical selection).
      const semantic = input.meaning && preselector.selects(input.snapshot) ? (await input.meaning.read())?.scores : undefined;
      const selection = preselector.select({ query: input, history, pendingAgents: input.pendingAgents, snapshot: input.snapshot, ...(semantic ? { semantic } : {}) });
      const messages = buildIntentMessages({
        query: text,
        cards: selection.cards,
        enabledCount: input.snapshot.enabledAgents.length,
        history,
        pending,
        today,
        summary: input.summary,
        profile: input.profile,
        foldOldest: history.length >= input.snapshot.supervisor.memoryMaxHistory,
      });
      const tier = chooseTier({ purpose: 'intent', turnKind: 'unknown', query: text });
      const called = await completeJson<UncheckedIntentReply>(gateway, {
        purpose: 'intent',
        tier: tier.tier,
        tierReason: tier.reason,
        messages,
        jsonSchema: { name: 'intent_and_plan', schema: INTENT_REPLY_SCHEMA as unknown as Record<string, unknown> },
        validate: validateReply,
        repairs: 1,
        onInvalid: (attempt, problem) => logger.info({ attempt, problem }, 'intent: model reply unusable'),
        temperature: 0,
        signal: input.signal,
        usage: input.usage,
      });
      if (!called.ok) return fallBack(input, called.failure === 'call_failed' ? called.reason : 'invalid_reply', called.detail);
      // "Which of these do you mean?": the candidates the registry has, or the offline matcher when none is left.
      const clarify = (called.value as unknown as Partial<ClarifyReply>).clarify;
      if (Array.isArray(clarify)) {
        const ids = [...new Set(clarify.map((given) => resolveAgentId(input.snapshot, given)).filter((agentId): agentId is string => agentId !== undefined))];
        const clarification = buildClarification(ids, input.snapshot, input.language);
        if (!clarification) return fallBack(input, 'invalid_reply', 'clarify named no enabled agent');
        const question = clarificationQuestionText(clarification.options.map((option) => option.label), input.language);
        const reason = typeof called.value.reason === 'string' ? called.value.reason : '';
        return { kind: 'simple', simpleKind: 'clarify', intents: [], confidence: 'low', reason, rewrittenQuery: text, userFriendlyMessage: question, answer: question, clarification, source: 'model' };
      }
      // The plan draft is planning's to check; its agents join the intents, and a description repeating the prompt is blanked.
      const { task_plan: draft, ...fields } = called.value;
      const reply: IntentReply = fields;
      const checked = draft === undefined ? undefined : drafts.check(draft, (description) => leakCheck.leaks(description));
      if (checked && 'problem' in checked) logger.info({ problem: checked.problem }, 'intent: plan draft unusable; planning from the intents');
      const drafted = checked && 'agents' in checked ? checked : undefined;

      let result = toIntentResult(reply, drafted, input, text, logger, leakCheck);
      // A message that tries to instruct the model does not get to choose services the words themselves do not ask for.
      if (result.kind === 'business' && hasInjectionSignals(text)) result = confineToOffline(result, await fallback.recognize(input), logger);
      if (cache && result.confidence === 'high' && result.kind !== 'escalate') {
        const ownKey = key !== sharedKey && usesProfileValue(input.profile ?? '', text, result) ? key : sharedKey;
        await cache.set(ownKey, result).catch((error: unknown) => logger.warn({ err: error }, 'intent cache write failed'));
      }
      return result;
    },
  };
}

/**
 * The model's business result limited to the agents the offline recognizer
 * also finds in the message (its plan draft too); none in common → the
 * offline result decides the turn.
 */
function confineToOffline(result: IntentResult, offline: IntentResult, logger: Logger): IntentResult {
  const found = new Set(offline.kind === 'business' ? offline.intents.map((intent) => intent.agentId) : []);
  const kept = result.intents.filter((intent) => found.has(intent.agentId));
  const dropped = result.intents.filter((intent) => !found.has(intent.agentId)).map((intent) => intent.agentId);
  if (dropped.length === 0) return result;
  logger.warn({ dropped }, 'intent: instruction-like message; services the offline reading does not find are dropped');
  if (kept.length === 0) return { ...offline, source: 'fallback' };
  const draftPlan = result.draftPlan ? { ...result.draftPlan, onlyAgents: kept.map((intent) => intent.agentId) } : undefined;
  return { ...result, intents: kept, confidence: 'medium', userFriendlyMessage: offline.userFriendlyMessage, ...(draftPlan ? { draftPlan } : {}) };
}

function enabledCards(snapshot: RegistrySnapshot, agentIds: readonly string[]): AgentCard[] {
  return [...new Set(agentIds)].flatMap((agentId) => {
    const card = snapshot.byId.get(agentId);
    return card?.enabled ? [card] : [];
  });
}

/** Turns a validated reply into an `IntentResult` for the turn's snapshot (see the file header). */
function toIntentResult(reply: IntentReply, drafted: { agents: string[]; taskPlan: unknown } | undefined, input: IntentInput, text: string, logger: Logger, leakCheck: PromptLeakCheck): IntentResult {
  const { snapshot, language } = input;
  const idScrubber = createContentGuard(snapshot, { inventedIdsIn: language, namesIn: language });
  // Model text for the user: ids named, addresses and secrets removed; a text repeating the prompt is dropped whole.
  const scrubber = {
    scrub(value: string): string {
      const cleaned = idScrubber.scrub(value ?? '');
      if (!leakCheck.leaks(cleaned)) return cleaned;
      logger.warn('intent: the model repeated its instructions in a user-facing text; using a template');
      return '';
    },
  };
  // The rewrite and task descriptions go to sub-agents and into event metadata: one that repeats the prompt is not used.
  const rewrittenQuery = (leakCheck.leaks(reply.rewritten_query) ? '' : reply.rewritten_query.trim()) || text;
  const memorySummary = reply.memory_summary?.trim() ? scrubber.scrub(reply.memory_summary).trim() || undefined : undefined;
  const base = { confidence: reply.confidence, reason: reply.reason ?? '', rewrittenQuery, source: 'model' as const, ...(memorySummary ? { memorySummary } : {}) };

  if (reply.kind === 'escalate') {
    return { ...base, kind: 'escalate', intents: [], userFriendlyMessage: composeDirectAnswer('escalate', snapshot, language, text) };
  }
  if (reply.kind === 'simple') {
    const simpleKind = reply.simple_kind ?? 'out_of_scope';
    const answer = scrubber.scrub(reply.answer ?? '').trim() || composeDirectAnswer(simpleKind, snapshot, language, text);
    return { ...base, kind: 'simple', simpleKind, intents: [], userFriendlyMessage: answer, answer };
  }

  const requested = [...reply.intent, ...(drafted?.agents ?? [])];
  const accepted: string[] = [];
  const dropped: string[] = [];
  for (const given of requested) {
    const agentId = resolveAgentId(snapshot, given);
    if (agentId === undefined) dropped.push(String(given));
    else if (!accepted.includes(agentId)) accepted.push(agentId);
  }
  if (dropped.length > 0) logger.info({ dropped: [...new Set(dropped)] }, 'intent: dropped intents outside the enabled capabilities');
  if (accepted.length === 0) {
    // A reply without `kind` (the bare intent shape) speaks to the user in `user_friendly_message`.
    const modelText = reply.kind === undefined && dropped.length === 0 ? scrubber.scrub(reply.user_friendly_message).trim() : '';
    const answer = modelText || composeDirectAnswer('out_of_scope', snapshot, language, text);
    return { ...base, kind: 'simple', simpleKind: 'out_of_scope', intents: [], userFriendlyMessage: answer, answer, reason: `${base.reason} (no enabled capability matched)`.trim() };
  }
  const score = SCORE_BY_CONFIDENCE[reply.confidence];
  const intents: RankedIntent[] = accepted.map((agentId, index) => ({ agentId, score: Math.max(0.1, score - index * 0.01) }));
  const cards = accepted.map((agentId) => snapshot.byId.get(agentId)!);
  const message = dropped.length > 0 ? '' : scrubber.scrub(reply.user_friendly_message).trim();
  const draftPlan: ModelPlan | undefined = drafted ? { query: text, task_plan: drafted.taskPlan } : undefined;
  return {
    ...base,
    kind: 'business',
    intents,
    userFriendlyMessage: message || composeIntentMessage(cards, language),
    ...(draftPlan ? { draftPlan } : {}),
  };
}
