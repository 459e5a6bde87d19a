/**
 * Where each property name of the registry schema may be written, so a field
 * put at the wrong level gets "did you mean": `retries` on an agent is
 * `endpoint.retries`, `side_effects` under `endpoint` belongs on the agent.
 * Paths are instance paths with `*` for any array item or map entry.
 */
import { splitPointer } from './yaml-source.js';

/** Every schema path ending in a property name, by that name. */
export type FieldPlacements = ReadonlyMap<string, readonly (readonly string[])[]>;

type SchemaNode = Record<string, unknown>;
const isNode = (value: unknown): value is SchemaNode => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Walks the registry JSON Schema once (following `#/definitions/…` references) and indexes its property names. */
export function indexFieldPlacements(schema: SchemaNode): FieldPlacements {
  const placements = new Map<string, string[][]>();
  const resolve = (node: SchemaNode): { node: SchemaNode; ref?: string } => {
    const ref = node.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return { node };
    let target: unknown = schema;
    for (const part of ref.slice(2).split('/')) target = isNode(target) ? target[part] : undefined;
    return isNode(target) ? { node: target, ref } : { node: {} };
  };
  const walk = (given: unknown, path: string[], refs: readonly string[]): void => {
    if (!isNode(given) || path.length > 8) return;
    const { node, ref } = resolve(given);
    if (ref !== undefined && refs.includes(ref)) return;
    const seen = ref === undefined ? refs : [...refs, ref];
    if (isNode(node.properties)) {
      for (const [name, child] of Object.entries(node.properties)) {
        const at = [...path, name];
        const list = placements.get(name) ?? [];
        if (!list.some((existing) => existing.join('/') === at.join('/'))) list.push(at);
        placements.set(name, list);
        walk(child, at, seen);
      }
    }
    if (node.items !== undefined) walk(node.items, [...path, '*'], seen);
    if (isNode(node.additionalProperties)) walk(node.additionalProperties, [...path, '*'], seen);
    for (const combinator of ['anyOf', 'oneOf', 'allOf'] as const) {
      const branches = node[combinator];
      if (Array.isArray(branches)) for (const branch of branches) walk(branch, path, seen);
    }
    for (const branch of ['then', 'else'] as const) if (node[branch] !== undefined) walk(node[branch], path, seen);
  };
  walk(schema, [], []);
  return placements;
}

/**
 * Where a property written at `parentPointer` (where the schema does not allow
 * it) is allowed nearest: `endpoint.retries` when it belongs in an object just
 * below, else the full pointer it belongs at (`*` for any item). Undefined when the name is nowhere in the schema.
 */
export function suggestPlacement(placements: FieldPlacements, name: string, parentPointer: string): string | undefined {
  const candidates = placements.get(name);
  if (!candidates || candidates.length === 0) return undefined;
  const here = splitPointer(parentPointer);
  const pattern = here.map((part) => (/^\d+$/.test(part) ? '*' : part));
  const shared = (candidate: readonly string[]) => {
    let count = 0;
    while (count < candidate.length - 1 && count < pattern.length && (candidate[count] === pattern[count] || candidate[count] === '*')) count += 1;
    return count;
  };
  const best = [...candidates].sort((left, right) => shared(right) - shared(left) || left.length - right.length)[0]!;
  const common = shared(best);
  const rest = best.slice(common);
  if (common === pattern.length && !rest.includes('*')) return rest.join('.');
  const concrete = [...here.slice(0, common), ...best.slice(common)];
  return `/${concrete.join('/')}`;
}
