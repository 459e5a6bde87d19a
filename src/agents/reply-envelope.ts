/**
 * The reply envelope every sub-agent sends (the `http-json` body or the SSE
 * `result` event), checked with ajv before anything reads it. Extra fields are
 * allowed so agents can add their own metadata.
 */
import { Ajv } from 'ajv';
import { validateValue, type SafeJsonResult } from '../util/safe-json.js';
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
