/**
 * Cycles in a dependency graph, for the registry's `depends_on` check and a
 * task plan's `dependencies` alike. One depth-first walk in the order the
 * nodes are given; every edge back onto the walk's own path is one cycle,
 * reported once, as ids ending where they started (`a → b → a`, a self
 * dependency as `a → a`). Edges to ids that are not nodes are ignored; a
 * caller reports those its own way.
 */

/** Every cycle among `ids`, in walk order (empty when the graph is acyclic). */
export function findCycles(ids: Iterable<string>, dependenciesOf: (id: string) => Iterable<string>): string[][] {
  const nodes = new Set(ids);
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (id: string): void => {
    state.set(id, 'visiting');
    path.push(id);
    for (const dependency of dependenciesOf(id)) {
      if (!nodes.has(dependency)) continue;
      const seen = state.get(dependency);
      if (seen === 'visiting') cycles.push([...path.slice(path.indexOf(dependency)), dependency]);
      else if (seen === undefined) visit(dependency);
    }
    path.pop();
    state.set(id, 'done');
  };
  for (const id of nodes) if (!state.has(id)) visit(id);
  return cycles;
}
