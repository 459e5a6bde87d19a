/**
 * Requests made from an OpenAPI document's own schemas, for the property test
 * that holds the document and the server together: valid values of the JSON
 * Schema subset the document uses (type, enum, const, pattern, minLength,
 * maxLength, minimum, maximum, minItems, maxItems, contains, required,
 * properties, an object's anyOf, format date-time, $ref), built on fast-check
 * (`stringMatching` gives strings of a pattern), and for each constraint one
 * value that breaks it and nothing else it can avoid breaking.
 */
import fc from 'fast-check';

export type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  contains?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
};

/** Follows `$ref`s into `#/components/...` of the document. */
export function resolver(document: Record<string, unknown>): (schema: Schema) => Schema {
  const resolve = (schema: Schema): Schema => {
    if (!schema.$ref) return schema;
    const target = schema.$ref.replace(/^#\//, '').split('/').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], document);
    return resolve(target as Schema);
  };
  return resolve;
}

/** `a` with `b`'s constraints on top (properties merged at every depth, required joined). */
export function merge(a: Schema, b: Schema): Schema {
  const properties: Record<string, Schema> = { ...a.properties };
  for (const [name, schema] of Object.entries(b.properties ?? {})) properties[name] = merge(properties[name] ?? {}, schema);
  return { ...a, ...b, properties, required: [...new Set([...(a.required ?? []), ...(b.required ?? [])])] };
}

function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type[0];
  return schema.type ?? (schema.properties || schema.required ? 'object' : undefined);
}

/** Strings of the schema: its pattern, within its lengths (generated short: at most 24 characters unless more are needed). */
function validString(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Number.POSITIVE_INFINITY;
  if (schema.format === 'date-time') {
    return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString());
  }
  const base = schema.pattern
    ? fc.stringMatching(new RegExp(schema.pattern, 'u'), { size: 'xsmall' })
    : fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, 24)), unit: 'grapheme-ascii' });
  return base.filter((value) => value.length >= min && value.length <= max);
}

/** Values the schema accepts. */
export function validValue(schema0: Schema, resolve: (schema: Schema) => Schema): fc.Arbitrary<unknown> {
  const schema = resolve(schema0);
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (typeOf(schema)) {
    case 'string':
      return validString(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? 0, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? 0, max: schema.maximum ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = validValue(schema.items ?? {}, resolve);
      // An array that must contain a kind of item is that item alone: the rest of the items are read as the document says, but not checked here.
      if (schema.contains) return validValue(merge(resolve(schema.items ?? {}), resolve(schema.contains)), resolve).map((item) => [item]);
      const min = schema.minItems ?? 0;
      return fc.array(items, { minLength: min, maxLength: Math.max(min, Math.min(schema.maxItems ?? 2, 2)) });
    }
    case 'object': {
      if (schema.anyOf) return fc.constantFrom(...schema.anyOf).chain((branch) => validValue(merge({ ...schema, anyOf: undefined }, resolve(branch)), resolve));
      const properties = schema.properties ?? {};
      const required = (schema.required ?? []).filter((name) => name in properties);
      return fc.record(Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, validValue(property, resolve)])), { requiredKeys: required });
    }
    default:
      return fc.constant({});
  }
}

/** One constraint of a schema broken: its name and the value that breaks it (`undefined`: the value is left out). */
export interface Breach {
  constraint: string;
  value: unknown;
}

const PATTERN_BREAKERS = ['   ', 'a b', '/', '#', 'x', 'é', '', 'a'.repeat(300)];

/** The values that break one constraint each of a (resolved) value schema; `required` is the caller's to add. */
export function breaches(schema0: Schema, resolve: (schema: Schema) => Schema, valid: unknown, options: { typeBreaks?: boolean; header?: boolean } = {}): Breach[] {
  const schema = resolve(schema0);
  const out: Breach[] = [];
  const type = typeOf(schema);
  if (schema.enum) out.push({ constraint: 'enum', value: 'zz-not-in-enum' });
  if (type === 'string' && !schema.enum) {
    if (schema.pattern) {
      const regex = new RegExp(schema.pattern, 'u');
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? Number.POSITIVE_INFINITY;
      // A header value is trimmed on the way: blanks are no value there.
      const breaker = PATTERN_BREAKERS.find((text) => !regex.test(text) && text.length >= min && text.length <= max && !(options.header && text.trim() === ''));
      if (breaker !== undefined) out.push({ constraint: 'pattern', value: breaker });
    }
    if ((schema.minLength ?? 0) > 0) out.push({ constraint: 'minLength', value: '' });
    if (schema.maxLength !== undefined) out.push({ constraint: 'maxLength', value: 'a'.repeat(schema.maxLength + 1) });
  }
  if (type === 'integer') {
    out.push({ constraint: 'type', value: 'abc' });
    if (schema.minimum !== undefined) out.push({ constraint: 'minimum', value: schema.minimum - 1 });
    if (schema.maximum !== undefined) out.push({ constraint: 'maximum', value: schema.maximum + 1 });
  }
  if (options.typeBreaks !== false && type !== 'integer' && type !== undefined) {
    out.push({ constraint: 'type', value: type === 'string' ? 12345 : type === 'array' ? 'not-an-array' : 'not-an-object' });
  }
  if (type === 'array' && Array.isArray(valid)) {
    if (schema.maxItems !== undefined && valid.length > 0) out.push({ constraint: 'maxItems', value: Array.from({ length: schema.maxItems + 1 }, () => valid[0]) });
    if ((schema.minItems ?? 0) > 0) out.push({ constraint: 'minItems', value: [] });
  }
  return out;
}
