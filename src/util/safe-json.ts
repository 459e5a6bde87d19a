/**
 * The one way to read JSON that an LLM or a remote agent produced: tolerant of
 * code fences and prose around the object, never throws, and validates with ajv
 * when a validator is given.
 */
import type { ValidateFunction } from 'ajv';

export type SafeJsonResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Parses JSON text; never throws. */
export function safeJsonParse(text: string): SafeJsonResult<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: `invalid JSON: ${(error as Error).message}` };
  }
}

/**
 * Finds the JSON value in a model reply: the whole text, else the body of a
 * ```json fence, else the first balanced `{...}` or `[...]` span.
 */
export function extractJson(text: string): SafeJsonResult<unknown> {
  const trimmed = text.trim();
  const direct = safeJsonParse(trimmed);
  if (direct.ok) return direct;
  const fence = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(trimmed);
  if (fence) {
    const fenced = safeJsonParse(fence[1]!.trim());
    if (fenced.ok) return fenced;
  }
  for (let start = 0; start < trimmed.length; start++) {
    const open = trimmed[start];
    if (open !== '{' && open !== '[') continue;
    const end = findBalancedEnd(trimmed, start);
    if (end < 0) continue;
    const candidate = safeJsonParse(trimmed.slice(start, end + 1));
    if (candidate.ok) return candidate;
  }
  return { ok: false, error: 'no JSON object found in the reply' };
}

/** Index of the bracket closing the one at `start`, honouring strings; -1 if unbalanced. */
function findBalancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const char = text[index]!;
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') stack.push('}');
    else if (char === '[') stack.push(']');
    else if (char === '}' || char === ']') {
      if (stack.pop() !== char) return -1;
      if (stack.length === 0) return index;
    }
  }
  return -1;
}

/** Extracts JSON from `text` and validates it; the error names the first failing paths. */
export function parseAndValidate<T>(text: string, validate: ValidateFunction, options: { lenient?: boolean } = {}): SafeJsonResult<T> {
  const parsed = options.lenient === false ? safeJsonParse(text) : extractJson(text);
  if (!parsed.ok) return parsed;
  return validateValue<T>(parsed.value, validate);
}

/** Validates an already-parsed value; the error lists ajv's messages with their paths. */
export function validateValue<T>(value: unknown, validate: ValidateFunction): SafeJsonResult<T> {
  if (validate(value)) return { ok: true, value: value as T };
  return { ok: false, error: describeAjvErrors(validate, value) };
}

/**
 * ajv errors as one readable line: `/path must be string; /other must ...`.
 * Given the validated value, an enum or const error names the allowed values
 * and what was there instead (`/status must be one of "completed", "failed" (got "ok")`).
 */
export function describeAjvErrors(validate: ValidateFunction, value?: unknown): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((error) => {
      const where = error.instancePath || '/';
      const allowed = error.keyword === 'enum' ? (error.params as { allowedValues?: unknown[] }).allowedValues : error.keyword === 'const' ? [(error.params as { allowedValue?: unknown }).allowedValue] : undefined;
      if (allowed === undefined || value === undefined) return `${where} ${error.message ?? 'is invalid'}`;
      const got = valueAt(value, error.instancePath);
      const shown = got === undefined ? 'nothing' : String(JSON.stringify(got)).slice(0, 80);
      return `${where} must be ${allowed.length === 1 ? '' : 'one of '}${allowed.map((item) => JSON.stringify(item)).join(', ')} (got ${shown})`;
    })
    .join('; ');
}

/** The value at a JSON pointer, or undefined. */
function valueAt(value: unknown, pointer: string): unknown {
  let here = value;
  for (const part of pointer.split('/').slice(1)) {
    if (here === null || typeof here !== 'object') return undefined;
    here = (here as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return here;
}
