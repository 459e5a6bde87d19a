/**
 * Normalises the several spellings of `extract` accepted in the file
 * (`{enum: [...]}`, `{type: enum, values: [...]}`, `{pattern: ...}`,
 * `{type: date}`, ...) into the `ExtractSpec` union, compiling patterns once
 * on the linear-time engine (`src/util/safe-pattern.ts`).
 */
import { compileSafePattern } from '../util/index.js';
import type { ExtractSpec } from './types.js';

/** The raw `extract` object after schema validation. */
export interface RawExtract {
  type?: ExtractSpec['type'];
  enum?: string[];
  values?: string[];
  pattern?: string;
  flags?: string;
  min?: number;
  max?: number;
}

/** A problem in one `extract` spec; `field` is the property it concerns. */
export interface ExtractProblem {
  field: string | null;
  message: string;
}

/** Normalises a raw spec, or lists everything wrong with it. */
export function normaliseExtract(raw: RawExtract | undefined): { spec: ExtractSpec } | { problems: ExtractProblem[] } {
  if (raw === undefined) return { spec: { type: 'text' } };
  const problems: ExtractProblem[] = [];
  const listField = raw.enum !== undefined ? 'enum' : raw.values !== undefined ? 'values' : null;
  const list = raw.enum ?? raw.values;
  if (raw.enum !== undefined && raw.values !== undefined) {
    problems.push({ field: 'values', message: 'give either `enum` or `values`, not both' });
  }
  const type = raw.type ?? (list !== undefined ? 'enum' : raw.pattern !== undefined ? 'pattern' : undefined);
  if (type === undefined) {
    return { problems: [{ field: null, message: 'extract needs a `type`, an `enum` list or a `pattern`' }] };
  }

  if (list !== undefined && type !== 'enum') {
    problems.push({ field: listField, message: `\`${listField}\` is only used with type enum (type is ${type})` });
  }
  if (raw.pattern !== undefined && type !== 'pattern') {
    problems.push({ field: 'pattern', message: `\`pattern\` is only used with type pattern (type is ${type})` });
  }
  if (raw.flags !== undefined && type !== 'pattern') {
    problems.push({ field: 'flags', message: '`flags` is only used with type pattern' });
  }
  if ((raw.min !== undefined || raw.max !== undefined) && type !== 'number') {
    problems.push({ field: raw.min !== undefined ? 'min' : 'max', message: '`min`/`max` are only used with type number' });
  }

  let spec: ExtractSpec | undefined;
  switch (type) {
    case 'enum': {
      if (list === undefined) {
        problems.push({ field: null, message: 'type enum needs a non-empty `enum` list' });
      } else if (list.length === 0) {
        problems.push({ field: listField, message: 'the enum list is empty: give at least one value' });
      } else {
        spec = { type: 'enum', values: [...new Set(list)] };
      }
      break;
    }
    case 'pattern': {
      if (raw.pattern === undefined) {
        problems.push({ field: null, message: 'type pattern needs a `pattern`' });
        break;
      }
      const flags = raw.flags ?? '';
      const compiled = compileSafePattern(raw.pattern, flags);
      if (compiled.ok) spec = { type: 'pattern', pattern: raw.pattern, flags, matcher: compiled.pattern };
      else problems.push({ field: 'pattern', message: compiled.error });
      break;
    }
    case 'number': {
      if (raw.min !== undefined && raw.max !== undefined && raw.min > raw.max) {
        problems.push({ field: 'min', message: `min (${raw.min}) is greater than max (${raw.max})` });
      }
      spec = { type: 'number', ...(raw.min !== undefined ? { min: raw.min } : {}), ...(raw.max !== undefined ? { max: raw.max } : {}) };
      break;
    }
    default:
      spec = { type };
  }
  if (problems.length > 0 || spec === undefined) return { problems };
  return { spec };
}

/** The public (JSON) form of a spec: no compiled RegExp. */
export function extractToJson(spec: ExtractSpec): Record<string, unknown> {
  if (spec.type === 'pattern') return { type: 'pattern', pattern: spec.pattern, flags: spec.flags };
  if (spec.type === 'enum') return { type: 'enum', values: [...spec.values] };
  return { ...spec };
}
