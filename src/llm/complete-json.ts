/**
 * One model call whose reply must be a JSON value meeting a schema (docs/api.md#model-replies:
 * validated, with a safe fallback). The reply goes through the safe-parse
 * + ajv helper; an unusable reply may be repaired by further calls that show
 * the model its reply and the problem. Nothing here throws for a failed call
 * or a bad reply — the caller gets the reason and takes its offline path —
 * except when the caller's own signal aborted, which is rethrown.
 */
import type { ValidateFunction } from 'ajv';
import { parseAndValidate } from '../util/index.js';
import { LlmCallError, type LlmFailureReason } from './llm-error.js';
import type { ChatMessage, LlmCallOptions, LlmGateway } from './types.js';
import { truncateText } from '../text/index.js';

/** A JSON call: the ordinary call options, the schema sent to the model and the validator of its reply. */
export interface JsonCallOptions extends Omit<LlmCallOptions, 'jsonSchema' | 'onToken'> {
  jsonSchema: NonNullable<LlmCallOptions['jsonSchema']>;
  validate: ValidateFunction;
  /** Further calls after an unusable reply. Default 0. */
  repairs?: number;
  /** Told about each unusable reply (for logs). */
  onInvalid?: (attempt: number, problem: string) => void;
}

/** The validated value, or why there is none. */
export type JsonCallOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; failure: 'call_failed'; reason: LlmFailureReason | 'error'; detail: string; error: unknown }
  | { ok: false; failure: 'invalid_reply'; detail: string };

/** The messages of a repair call: the conversation so far, the unusable reply and what was wrong with it. */
export function repairMessages(messages: readonly ChatMessage[], previousReply: string, problem: string): ChatMessage[] {
  return [
    ...messages,
    { role: 'assistant', content: truncateText(previousReply, 2000) },
    { role: 'user', content: `That reply could not be used (${truncateText(problem, 300)}). Reply again with one JSON object with every required field, nothing else.` },
  ];
}

/** Calls the model in JSON mode and validates the reply (see the file header). */
export async function completeJson<T>(gateway: LlmGateway, options: JsonCallOptions): Promise<JsonCallOutcome<T>> {
  const { validate, repairs = 0, onInvalid, ...call } = options;
  let messages = call.messages;
  let problem = '';
  for (let attempt = 1; attempt <= 1 + repairs; attempt += 1) {
    let text: string;
    try {
      text = (await gateway.complete({ ...call, messages })).text;
    } catch (error) {
      if (call.signal?.aborted) throw error;
      const reason = error instanceof LlmCallError ? error.reason : 'error';
      return { ok: false, failure: 'call_failed', reason, detail: error instanceof Error ? error.message : String(error), error };
    }
    const parsed = parseAndValidate<T>(text, validate);
    if (parsed.ok) return parsed;
    problem = parsed.error;
    onInvalid?.(attempt, problem);
    messages = repairMessages(call.messages, text, problem);
  }
  return { ok: false, failure: 'invalid_reply', detail: problem };
}
