/**
 * Structured output across OpenAI-compatible endpoints. Not every server
 * accepts `response_format: json_schema`, so a gateway starts with the
 * strongest mode and steps down when the endpoint rejects it: json_schema →
 * json_object → prompt. Every mode also works without endpoint support
 * because the caller validates the reply anyway; json_object and prompt add
 * the schema to the system message (json_object also needs the word "JSON"
 * in the messages on OpenAI itself).
 */
import type { ChatMessage, JsonMode } from './types.js';

/** Modes from strongest to weakest. */
export const JSON_MODES: readonly JsonMode[] = ['json_schema', 'json_object', 'prompt'];

/** The next weaker mode, or undefined after `prompt`. */
export function weakerJsonMode(mode: JsonMode): JsonMode | undefined {
  return JSON_MODES[JSON_MODES.indexOf(mode) + 1];
}

/** True when `value` names a JSON mode. */
export function isJsonMode(value: string): value is JsonMode {
  return (JSON_MODES as readonly string[]).includes(value);
}

/** The `response_format` request field for a mode (none for `prompt`). */
export function responseFormatFor(mode: JsonMode, jsonSchema: { name: string; schema: Record<string, unknown> }): Record<string, unknown> | undefined {
  if (mode === 'json_schema') {
    return { type: 'json_schema', json_schema: { name: sanitiseSchemaName(jsonSchema.name), schema: jsonSchema.schema, strict: false } };
  }
  if (mode === 'json_object') return { type: 'json_object' };
  return undefined;
}

/**
 * The messages to send for a mode: unchanged for json_schema; otherwise the
 * system message gains an instruction carrying the schema (a system message is
 * added first when there is none).
 */
export function messagesFor(mode: JsonMode, messages: readonly ChatMessage[], jsonSchema: { name: string; schema: Record<string, unknown> }): ChatMessage[] {
  if (mode === 'json_schema') return messages.map((message) => ({ ...message }));
  const instruction =
    'Reply with one JSON object only: no prose, no code fences. ' +
    `It must match this JSON Schema ("${jsonSchema.name}"):\n${JSON.stringify(jsonSchema.schema)}`;
  const copy = messages.map((message) => ({ ...message }));
  const system = copy.find((message) => message.role === 'system');
  if (system) system.content = `${system.content}\n\n${instruction}`;
  else copy.unshift({ role: 'system', content: instruction });
  return copy;
}

/** OpenAI requires `[a-zA-Z0-9_-]{1,64}` for a schema name. */
function sanitiseSchemaName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return cleaned.length > 0 ? cleaned : 'response';
}
