/**
 * Checks that span agents: ids are unique, every `depends_on` names a known
 * agent (a disabled one only warns), and dependencies form no cycle.
 */
import { findCycles } from '../util/index.js';
import { closestName } from './config-schema.js';
import type { Findings } from './findings.js';
import { dependencyList, isRecord, type RawAgent } from './raw-config.js';
import type { ConfigIssue } from './types.js';
import { joinPointer, type YamlSource } from './yaml-source.js';

/** Cross-check findings plus where each id is first defined. */
export interface CrossCheckResult extends Findings {
  /** Agent id → index of its first definition in `agents`. */
  readonly indexById: ReadonlyMap<string, number>;
}

/** Runs every cross-agent check over the raw `agents` list. */
export function crossCheckAgents(source: YamlSource, agents: readonly RawAgent[]): CrossCheckResult {
  const ids = checkUniqueIds(source, agents);
  const dependencies = checkDependencies(source, agents, ids.indexById);
  const cycles = checkCycles(source, agents, ids.indexById);
  return {
    indexById: ids.indexById,
    issues: [...ids.issues, ...dependencies.issues, ...cycles],
    warnings: dependencies.warnings,
  };
}

function checkUniqueIds(source: YamlSource, agents: readonly RawAgent[]): { indexById: Map<string, number>; issues: ConfigIssue[] } {
  const indexById = new Map<string, number>();
  const issues: ConfigIssue[] = [];
  agents.forEach((agent, index) => {
    if (!isRecord(agent) || typeof agent.id !== 'string') return;
    const first = indexById.get(agent.id);
    if (first === undefined) {
      indexById.set(agent.id, index);
      return;
    }
    const firstLine = source.positionOf(joinPointer(['agents', first, 'id'])).line;
    issues.push(source.issueAt(joinPointer(['agents', index, 'id']), `duplicate agent id "${agent.id}" (first defined at line ${firstLine})`));
  });
  return { indexById, issues };
}

function checkDependencies(source: YamlSource, agents: readonly RawAgent[], indexById: ReadonlyMap<string, number>): Findings {
  const issues: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const knownIds = [...indexById.keys()];
  agents.forEach((agent, index) => {
    if (!isRecord(agent) || typeof agent.id !== 'string') return;
    dependencyList(agent).forEach((dependency, dependencyIndex) => {
      if (typeof dependency !== 'string') return;
      const pointer = joinPointer(['agents', index, 'depends_on', dependencyIndex]);
      const dependencyIndexInFile = indexById.get(dependency);
      if (dependencyIndexInFile === undefined) {
        const suggestion = closestName(dependency, knownIds);
        const hint = suggestion ? ` (did you mean "${suggestion}"?)` : ` (known: ${knownIds.join(', ') || 'none'})`;
        issues.push(source.issueAt(pointer, `"${agent.id}" depends on unknown agent "${dependency}"${hint}`));
      } else if (agents[dependencyIndexInFile]?.enabled === false && agent.enabled !== false) {
        warnings.push(source.issueAt(pointer, `"${agent.id}" depends on disabled agent "${dependency}"`));
      }
    });
  });
  return { issues, warnings };
}

function checkCycles(source: YamlSource, agents: readonly RawAgent[], indexById: ReadonlyMap<string, number>): ConfigIssue[] {
  const dependenciesOf = (id: string) => dependencyList(agents[indexById.get(id)!]).filter((dependency): dependency is string => typeof dependency === 'string');
  return findCycles(indexById.keys(), dependenciesOf).map((cycle) => {
    const start = cycle[0] as string;
    const startIndex = indexById.get(start) as number;
    const dependencyIndex = dependencyList(agents[startIndex]).indexOf(cycle[1]);
    return source.issueAt(joinPointer(['agents', startIndex, 'depends_on', dependencyIndex]), `dependency cycle: ${cycle.join(' → ')}`);
  });
}
