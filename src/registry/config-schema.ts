/**
 * Validates the registry document against `schemas/agents_config.schema.json`
 * (the single source of truth for the file's shape) and turns ajv's errors into
 * positioned, readable `ConfigIssue`s.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { packageFileUrl } from '../util/index.js';
import { indexFieldPlacements, suggestPlacement, type FieldPlacements } from './field-placements.js';
import type { ConfigIssue } from './types.js';
import { joinPointer, splitPointer, type YamlSource } from './yaml-source.js';

/** Location of the registry JSON Schema inside the project. */
export const CONFIG_SCHEMA_URL = packageFileUrl('schemas/agents_config.schema.json');

/** Checks a parsed registry document against the file's JSON Schema; returns every issue found. */
export type ConfigShapeValidator = (source: YamlSource) => ConfigIssue[];

/**
 * Compiles the registry JSON Schema into a shape validator. A live registry
 * compiles one and reuses it for every reload (the validator is stateless
 * apart from ajv's `.errors`, read right after each call).
 */
export function createConfigShapeValidator(): ConfigShapeValidator {
  const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_URL, 'utf8')) as Record<string, unknown>;
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: true });
  ajv.addKeyword({ keyword: 'deprecationMessage', schemaType: 'string' });
  const validate: ValidateFunction = ajv.compile(schema);
  const placements = indexFieldPlacements(schema);
  return (source) => {
    if (source.data === null || source.data === undefined) {
      return [source.issueAt('', 'the file is empty: expected a mapping with `version: 1` and `agents:`')];
    }
    if (validate(source.data)) return [];
    return describeAjvErrors(validate.errors ?? [], source, '', placements);
  };
}

/**
 * Turns ajv errors into issues, one per location. `basePointer` is prepended
 * when the validated value is a part of the document (an agent's input_schema).
 * With the registry schema's `placements`, a field written at the wrong level
 * is told where it belongs.
 */
export function describeAjvErrors(errors: readonly ErrorObject[], source: YamlSource, basePointer: string, placements?: FieldPlacements): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  const locationsWithConcreteErrors = new Set(
    errors.filter((error) => !isCombinator(error)).map((error) => error.instancePath),
  );
  // Where an anyOf/oneOf failed, its branches each add an error; the first one is enough
  // (an if/else adds its branch's errors, which all hold).
  const combinatorLocations = new Set(errors.filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf').map((error) => error.instancePath));
  const reportedCombinatorLocations = new Set<string>();
  for (const error of errors) {
    if (isCombinator(error) && locationsWithConcreteErrors.has(error.instancePath)) continue;
    if (!isCombinator(error) && combinatorLocations.has(error.instancePath)) {
      if (reportedCombinatorLocations.has(error.instancePath)) continue;
      reportedCombinatorLocations.add(error.instancePath);
    }
    // A bad property name shows up twice (propertyNames + the name's own pattern); keep one.
    if (error.keyword === 'pattern' && error.propertyName !== undefined) continue;
    const { pointer, key, message } = describeAjvError(error, placements);
    const fullPointer = basePointer + pointer;
    const dedupeKey = `${fullPointer}\u0000${message}`;
    if (seen.has(dedupeKey)) continue;
    seen.add(dedupeKey);
    issues.push(source.issueAt(fullPointer, message, { key }));
  }
  return issues;
}

function isCombinator(error: ErrorObject): boolean {
  return error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if';
}

function describeAjvError(error: ErrorObject, placements: FieldPlacements | undefined): { pointer: string; key: boolean; message: string } {
  const params = error.params as Record<string, unknown>;
  const here = error.instancePath;
  const last = splitPointer(here).at(-1);
  const label = last === undefined ? 'the document' : /^\d+$/.test(last) ? `item ${last}` : `"${last}"`;
  switch (error.keyword) {
    case 'required':
      return { pointer: here, key: false, message: `missing required property "${String(params.missingProperty)}"` };
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const known = Object.keys(((error.parentSchema ?? {}) as { properties?: object }).properties ?? {});
      const placed = placements ? suggestPlacement(placements, name, here) : undefined;
      const suggestion = closestName(name, known) ?? known.find((candidate) => candidate.endsWith(`_${name}`) || candidate.startsWith(`${name}_`));
      // Below this level first (`endpoint.retries`), then a likely typo here, then elsewhere in the file.
      const below = placed !== undefined && !placed.startsWith('/');
      const hint =
        placed && (below || !suggestion)
          ? ` (did you mean "${placed}"? "${name}" is not allowed at this level)`
          : suggestion
            ? ` (did you mean "${suggestion}"?)`
            : known.length
              ? ` (allowed: ${known.join(', ')})`
              : '';
      return { pointer: here + joinPointer([name]), key: true, message: `unknown property "${name}"${hint}` };
    }
    case 'propertyNames':
      return {
        pointer: here + joinPointer([String(params.propertyName)]),
        key: true,
        message: `"${String(params.propertyName)}" is not an allowed name here`,
      };
    case 'type':
      return { pointer: here, key: false, message: `${label} must be ${article(String(params.type))}, got ${typeName(error.data)}` };
    case 'enum':
      return {
        pointer: here,
        key: false,
        message: `${label} must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}, got ${showValue(error.data, here)}`,
      };
    case 'const':
      return { pointer: here, key: false, message: `${label} must be ${JSON.stringify(params.allowedValue)}, got ${showValue(error.data, here)}` };
    case 'pattern':
      return { pointer: here, key: false, message: `${label} ${showValue(error.data, here)} does not match ${String(params.pattern)}` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { pointer: here, key: false, message: `${label} must be ${String(params.comparison)} ${String(params.limit)}, got ${showValue(error.data, here)}` };
    case 'minLength':
      return { pointer: here, key: false, message: Number(params.limit) === 1 ? `${label} must not be empty` : `${label} must be at least ${String(params.limit)} characters` };
    case 'maxLength':
      return { pointer: here, key: false, message: `${label} must be at most ${String(params.limit)} characters` };
    case 'minItems':
      return { pointer: here, key: false, message: `${label} must have at least ${String(params.limit)} item(s)` };
    case 'uniqueItems':
      return { pointer: here, key: false, message: `${label} has duplicate items (${String(params.j)} and ${String(params.i)})` };
    default:
      return { pointer: here, key: false, message: `${label} ${error.message ?? 'is invalid'}` };
  }
}

function article(type: string): string {
  const words = type.split(',');
  return words.map((word) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`)).join(' or ');
}

function typeName(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  return `a ${typeof value}`;
}

/** Shows a short scalar, never anything under `headers` or `url` (may hold secrets). */
function showValue(value: unknown, pointer: string): string {
  if (/\/(headers|url)(\/|$)/.test(pointer)) return typeName(value);
  if (typeof value === 'string' && value.length <= 60) return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return typeName(value);
}

/** The known name closest to a misspelt one, if it is close enough to be a likely typo. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const tolerance = Math.max(2, Math.floor(name.length / 3));
  return best !== undefined && bestDistance <= tolerance ? best : undefined;
}

function editDistance(left: string, right: string): number {
  const previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    let diagonal = previous[0] as number;
    previous[0] = row;
    for (let column = 1; column <= right.length; column += 1) {
      const above = previous[column] as number;
      const cost = left[row - 1] === right[column - 1] ? 0 : 1;
      previous[column] = Math.min(above + 1, (previous[column - 1] as number) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[right.length] as number;
}
