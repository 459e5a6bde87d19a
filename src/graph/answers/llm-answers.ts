/**
 * Answers written by the model, streamed to the user as they are produced.
 *
 * - `direct`: the recognizer usually wrote the answer of a simple turn in its
 *   own call (or the rule path took a template), so this costs no call; only
 *   a simple turn decided by the offline fallback gets one streamed call on
 *   the small model.
 * - `summarize`: one streamed call on the main model with the facts of the
 *   turn in user-facing form (service names, agent messages and trimmed
 *   outputs, reasons for what did not run, missing items with example
 *   values).
 *
 * Deltas pass through the content guard (ids, made-up ids, addresses and
 * header values) before they reach the user. When the
 * call fails, or the model repeated its instructions (output-guard.ts), the
 * offline template answer is returned as the turn's complete answer, even
 * after some (clean) deltas were shown.
 */
import { cardDescription, cardName, type RegistrySnapshot } from '../../registry/index.js';
import { type ChatMessage, chooseTier, type LlmGateway, type ModelTier } from '../../llm/index.js';
import { buildDirectMessages, buildSummaryMessages, type CompletedFact, type NeededFact, type NotDoneFact } from './answer-prompt.js';
import { createOutputGuard, createSystemPromptLeakCheck, type OutputGuard } from '../output-guard.js';
import type { Logger } from '../../logger.js';
import type { TurnContext } from '../context.js';
import { failureReasonText, missingReasonText, theResultsText, type Language } from '../../i18n/index.js';
import { serviceNames } from '../service-name.js';
import { enumChoices, keyExamples } from './key-examples.js';
import type { AnswerComposer, DirectAnswerInput, SummaryInput } from './types.js';

/** Dependencies and limits of the LLM answer composer. */
export interface LlmAnswersOptions {
  gateway: LlmGateway;
  /** Used when a call fails (normally the offline template answers). */
  fallback: AnswerComposer;
  logger: Logger;
  /** Longest agent output (JSON text) put in the summary prompt. Default 800 characters. */
  maxOutputChars?: number;
}

/** Creates the LLM answer composer. Throws a `TypeError` naming a missing dependency. */
export function createLlmAnswers(options: LlmAnswersOptions): AnswerComposer {
  if (!options?.gateway || typeof options.gateway.complete !== 'function') throw new TypeError('LLM answers: gateway is required');
  if (!options.fallback || typeof options.fallback.summarize !== 'function') throw new TypeError('LLM answers: fallback composer is required');
  if (!options.logger) throw new TypeError('LLM answers: logger is required');
  const { gateway, fallback, logger } = options;
  const maxOutputChars = options.maxOutputChars ?? 800;
  const leakCheck = createSystemPromptLeakCheck();
  /** One guard per registry snapshot and language, built on first use rather than per answer. */
  const guards = new WeakMap<RegistrySnapshot, Partial<Record<Language, OutputGuard>>>();
  function guardFor(snapshot: RegistrySnapshot, language: Language): OutputGuard {
    const byLanguage = guards.get(snapshot) ?? {};
    guards.set(snapshot, byLanguage);
    return (byLanguage[language] ??= createOutputGuard(snapshot, { language, leakCheck }));
  }

  /** One streamed call; undefined when it failed or produced nothing (the caller falls back). */
  async function streamed(
    purposeTier: { tier: ModelTier; reason: string },
    messages: ChatMessage[],
    context: TurnContext,
    onDelta: ((delta: string) => void) | undefined,
  ): Promise<string | undefined> {
    if (!gateway.enabled) return undefined;
    if (endpointUnavailableThisTurn(context)) {
      logger.info('answer: the model endpoint already failed this turn; using the template answer');
      return undefined;
    }
    const scrubber = guardFor(context.snapshot, context.language).stream();
    let shown = '';
    const show = (text: string) => {
      if (text.length === 0) return;
      shown += text;
      onDelta?.(text);
    };
    try {
      await gateway.complete({
        purpose: 'answer',
        tier: purposeTier.tier,
        tierReason: purposeTier.reason,
        messages,
        temperature: 0.3,
        signal: context.signal,
        usage: context.usage,
        onToken: (delta) => show(scrubber.push(delta)),
      });
      show(scrubber.flush());
      if (scrubber.leaked) {
        logger.warn({ shownCharacters: shown.length }, 'answer: the model repeated its instructions; using the template answer');
        return undefined;
      }
    } catch (error) {
      if (context.signal?.aborted) throw error;
      logger.warn({ err: error, shownCharacters: shown.length }, 'answer: model call failed; using the template answer');
      return undefined;
    }
    return shown.trim().length > 0 ? shown : undefined;
  }

  return {
    async direct(input: DirectAnswerInput, context: TurnContext, onDelta?: (delta: string) => void): Promise<string> {
      if (typeof input.intent?.answer === 'string' && input.intent.answer.trim().length > 0) return input.intent.answer;
      const tier = chooseTier({ purpose: 'answer', turnKind: 'simple', query: input.query });
      const messages = buildDirectMessages({
        query: input.query,
        language: input.language,
        kind: input.kind,
        services: input.snapshot.enabledAgents.slice(0, 20).map((card) => ({ name: cardName(card, input.language), description: cardDescription(card, input.language) })),
        history: input.history.slice(-2).map((turn) => ({ query: turn.query, answer: turn.answer })),
      });
      return (await streamed(tier, messages, context, onDelta)) ?? fallback.direct(input, context);
    },

    async summarize(input: SummaryInput, context: TurnContext, onDelta?: (delta: string) => void): Promise<string> {
      const tier = chooseTier({ purpose: 'answer', turnKind: 'business', query: input.query });
      const messages = buildSummaryMessages(summaryFacts(input, maxOutputChars));
      return (await streamed(tier, messages, context, onDelta)) ?? fallback.summarize(input, context);
    },
  };
}

/** The facts of a business turn in user-facing form (no ids). */
export function summaryFacts(input: SummaryInput, maxOutputChars = 800) {
  const { snapshot, plan, outcomes, language } = input;
  const nameOf = serviceNames(snapshot, language);
  const completed: CompletedFact[] = [];
  const notDone: NotDoneFact[] = [];
  for (const task of plan.sub_tasks) {
    const outcome = outcomes[task.task_id];
    const status = outcome?.status ?? task.status;
    if (status === 'completed') {
      const output = outcome?.output ? JSON.stringify(outcome.output) : '';
      completed.push({
        service: nameOf(task.assigned_agent),
        ...(outcome?.message?.trim() ? { message: outcome.message.trim() } : {}),
        ...(output ? { output: output.length > maxOutputChars ? `${output.slice(0, maxOutputChars)}…` : output } : {}),
      });
    } else if (status === 'failed' || status === 'skipped') {
      notDone.push({ service: nameOf(task.assigned_agent), reason: failureReasonText(language, outcome?.reason ?? 'agent_failed') });
    }
  }
  for (const item of input.verification?.sufficient === false ? input.verification.missing : []) {
    const why = missingReasonText(language, item.reason);
    notDone.push({ service: item.agent_id ? nameOf(item.agent_id) : theResultsText(language), reason: item.detail ? `${why}: ${item.detail}` : why });
  }
  const needed: NeededFact[] = [];
  const neededAgents = new Set<string>();
  for (const info of input.semanticInfo) {
    const card = snapshot.byId.get(info.sub_agent_id);
    if (!card) continue;
    neededAgents.add(card.id);
    needed.push({
      service: cardName(card, language),
      type: info.type,
      items: info.keys.map((key, index) => {
        const spec = card.requiredKeys.find((candidate) => candidate.key === key);
        const given = info.type === 'invalid' ? input.refusedValues?.[card.id]?.[key] : undefined;
        // Several values for a key one task takes once: the user picks among their own values.
        const several = info.type === 'invalid' ? input.severalValues?.[card.id]?.[key] : undefined;
        return {
          description: info.key_descriptions[index] || spec?.description || key,
          examples: spec ? keyExamples(spec, card, input.now, language) : [],
          ...(given !== undefined ? { given, choices: several ? [...several] : spec?.extract.type === 'enum' ? enumChoices(spec.extract.values, language) : [] } : {}),
        };
      }),
    });
  }
  const waiting = plan.sub_tasks
    .filter((task) => (outcomes[task.task_id]?.status ?? task.status) === 'parked' && !neededAgents.has(task.assigned_agent))
    .map((task) => nameOf(task.assigned_agent));
  return { query: input.query, language, completed, notDone, needed, waiting };
}

/** Failures that mean the endpoint is unreachable or stuck (not a bad reply). */
const UNAVAILABLE = /^(timeout|connection|circuit_open|rate_limited|server_error):/;

/**
 * True when a model call of this turn already failed because the endpoint was
 * unreachable, stuck or overloaded: another call in the same turn would most
 * likely wait out its timeout too, so the template answer is used at once.
 */
export function endpointUnavailableThisTurn(context: Pick<TurnContext, 'usage'>): boolean {
  return context.usage.calls.some((call) => !call.ok && UNAVAILABLE.test(call.error ?? ''));
}
