/**
 * The reply envelope every sub-agent sends (the `http-json` body or the SSE
 * `result` event), checked with ajv before anything reads it. Extra fields are
 * allowed so agents can add their own metadata.
 */
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { describeAjvErrors, validateValue, type SafeJsonResult } from '../util/safe-json.js';
import type { AgentReply } from './types.js';

/** JSON Schema of the reply envelope (CONTRACT §2). */
export const AGENT_REPLY_SCHEMA = {
  type: 'object',
  required: ['status'],
  properties: {
    status: { enum: ['completed', 'failed', 'input_required'] },
    output: { type: 'object' },
    message: { type: 'string' },
    missing_keys: { type: 'array', items: { type: 'string' } },
  },
} as const;

const validateReply = new Ajv({ allErrors: true, strict: true }).compile(AGENT_REPLY_SCHEMA);

/** Checks an already-parsed value against the reply envelope. */
export function parseReplyValue(value: unknown): SafeJsonResult<AgentReply> {
  return validateValue<AgentReply>(value, validateReply);
}

/**
 * Why a `completed` reply's `output` fails the card's `output_schema`, or
 * undefined when it meets it (or there is no schema, or the reply is not
 * `completed`). The client and `check-agent` judge output with this one rule.
 */
export function outputSchemaProblem(reply: AgentReply, validateOutput: ValidateFunction | undefined): string | undefined {
  if (reply.status !== 'completed' || !validateOutput) return undefined;
  if (reply.output === undefined) return 'the reply has no output but the card declares an output_schema';
  if (!validateOutput(reply.output)) return `output does not match output_schema: ${describeAjvErrors(validateOutput)}`;
  return undefined;
}
