/**
 * Checks of gateway options and call options, so a wiring mistake fails with
 * a message naming the field instead of an opaque endpoint error.
 */
import { LlmConfigError } from './llm-error.js';
import type { LlmCallOptions } from './types.js';

/** Gateway settings after checking, with defaults applied. */
export interface CheckedGatewaySettings {
  baseUrl: string;
  model: string;
  smallModel?: string;
  timeoutMs: number;
  maxRetries: number;
}

/** What is wrong with a call's options, or undefined when they are usable. */
export function describeInvalidCall(call: LlmCallOptions | undefined): string | undefined {
  if (typeof call !== 'object' || call === null) return 'call options must be an object';
  if (typeof call.purpose !== 'string' || call.purpose.trim() === '') return 'purpose must be a non-empty string';
  if (call.tier !== 'main' && call.tier !== 'small') return `tier must be "main" or "small", got ${JSON.stringify(call.tier)}`;
  if (!Array.isArray(call.messages) || call.messages.length === 0) return 'messages must be a non-empty array';
  for (const [index, message] of call.messages.entries()) {
    if (!message || !['system', 'user', 'assistant'].includes(message.role)) return `messages[${index}].role must be system, user or assistant`;
    if (typeof message.content !== 'string') return `messages[${index}].content must be a string`;
  }
  if (call.jsonSchema !== undefined) {
    if (typeof call.jsonSchema?.name !== 'string' || call.jsonSchema.name === '') return 'jsonSchema.name must be a non-empty string';
    if (typeof call.jsonSchema.schema !== 'object' || call.jsonSchema.schema === null) return 'jsonSchema.schema must be an object';
  }
  if (call.onToken !== undefined && typeof call.onToken !== 'function') return 'onToken must be a function';
  return undefined;
}

/** Checks gateway options; throws `LlmConfigError` naming the bad value. */
export function checkGatewayOptions(options: {
  baseUrl: string;
  model: string;
  smallModel?: string;
  timeoutMs?: number;
  maxRetries?: number;
}): CheckedGatewaySettings {
  if (typeof options?.baseUrl !== 'string' || options.baseUrl.trim() === '') throw new LlmConfigError('LLM base URL is missing');
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new LlmConfigError(`LLM base URL is not a valid URL: "${options.baseUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new LlmConfigError(`LLM base URL must be http or https: "${options.baseUrl}"`);
  if (typeof options.model !== 'string' || options.model.trim() === '') throw new LlmConfigError('LLM model name is missing');
  const timeoutMs = options.timeoutMs ?? 20_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new LlmConfigError(`LLM timeout must be a positive integer of milliseconds, got ${timeoutMs}`);
  const maxRetries = options.maxRetries ?? 2;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new LlmConfigError(`LLM max retries must be an integer ≥ 0, got ${maxRetries}`);
  const smallModel = options.smallModel?.trim() ? options.smallModel.trim() : undefined;
  return { baseUrl: options.baseUrl.replace(/\/+$/, ''), model: options.model.trim(), smallModel, timeoutMs, maxRetries };
}
