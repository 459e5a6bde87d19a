/**
 * The LLM verifier: one model call judging whether the results answer the
 * request (docs/api.md#model-replies). The reply is ajv-validated; a reply that does not
 * validate, or a failed call, yields no judgement and the rule check decides
 * alone (safe fallback, no retry call: the verify call is the turn's third
 * model call at most).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { chooseTier, completeJson, type LlmGateway } from '../../llm/index.js';
import type { Logger } from '../../logger.js';
import { endpointUnavailableThisTurn } from '../answers/llm-answers.js';
import type { TurnContext } from '../context.js';
import type { Verifier, VerifyInput, VerifyJudgement } from './types.js';
import { buildVerifyMessages } from './verify-prompt.js';

/** JSON Schema of the verify reply. */
export const VERIFY_REPLY_SCHEMA = {
  type: 'object',
  required: ['sufficient', 'retry', 'reason'],
  properties: {
    sufficient: { type: 'boolean' },
    retry: {
      type: 'array',
      maxItems: 20,
      items: {
        type: 'object',
        required: ['task_id', 'revised_message'],
        properties: { task_id: { type: 'string', minLength: 1 }, revised_message: { type: 'string', minLength: 1, maxLength: 2000 } },
      },
    },
    reason: { type: 'string' },
  },
} as const;

/** Creates the LLM verifier. Throws a `TypeError` naming a missing dependency. */
export function createLlmVerifier(options: { gateway: LlmGateway; logger: Logger }): Verifier {
  if (!options?.gateway || typeof options.gateway.complete !== 'function') throw new TypeError('LLM verifier: gateway is required');
  if (!options.logger) throw new TypeError('LLM verifier: logger is required');
  const { gateway, logger } = options;
  const validate: ValidateFunction = new Ajv({ allErrors: true, strict: false }).compile(VERIFY_REPLY_SCHEMA);
  return {
    usesModel: gateway.enabled,
    async judge(input: VerifyInput, context: TurnContext): Promise<VerifyJudgement | undefined> {
      if (!gateway.enabled) return undefined;
      if (endpointUnavailableThisTurn(context)) {
        logger.info('verify: the model endpoint already failed this turn; the rule check decides');
        return undefined;
      }
      const tier = chooseTier({ purpose: 'verify', turnKind: 'business', query: input.query });
      const called = await completeJson<VerifyJudgement>(gateway, {
        purpose: 'verify',
        tier: tier.tier,
        tierReason: tier.reason,
        messages: buildVerifyMessages(input),
        jsonSchema: { name: 'verify', schema: VERIFY_REPLY_SCHEMA as unknown as Record<string, unknown> },
        validate,
        temperature: 0,
        signal: context.signal,
        usage: context.usage,
      });
      if (called.ok) return called.value;
      if (called.failure === 'call_failed') logger.warn({ err: called.error }, 'verify: model call failed; the rule check decides');
      else logger.info({ problem: called.detail }, 'verify: model reply unusable; the rule check decides');
      return undefined;
    },
  };
}
