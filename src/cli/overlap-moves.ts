/**
 * What `validate` adds to an overlap warning: where the colliding examples go.
 * Each colliding example of two overlapping agents is routed standalone by the
 * offline recogniser over the file being validated — what `replay` would do
 * with a recorded turn that reads like it — and the ones that no longer reach
 * their own agent are listed: the requests the later card takes over, or that
 * now end in a clarification between the two.
 */
import { createRouter, type Routing } from '../eval/index.js';
import { silentLogger } from '../logger.js';
import { createMetrics } from '../metrics.js';
import { agentOverlaps, type RegistrySnapshot } from '../registry/index.js';
import { chooseStrategies } from '../switchboard.js';

/** At most this many moved examples are listed; the rest are counted. */
const MAX_LISTED = 10;

/** One colliding example that does not reach the agent it is an example of. */
export interface ExampleMove {
  readonly example: string;
  /** The agent whose example it is. */
  readonly owner: string;
  readonly routing: Routing;
}

/** Where the colliding examples of every overlapping pair route under `snapshot`: the moved ones, and how many were routed. */
export async function overlapMoves(snapshot: RegistrySnapshot): Promise<{ routed: number; moves: ExampleMove[] }> {
  const overlaps = agentOverlaps(snapshot.enabledAgents);
  if (overlaps.length === 0) return { routed: 0, moves: [] };
  // Offline always: validating a file never calls a model.
  const strategies = chooseStrategies(undefined, silentLogger, createMetrics());
  strategies.prepare(snapshot);
  const route = createRouter(strategies.recognizer, snapshot);
  const seen = new Set<string>();
  const moves: ExampleMove[] = [];
  for (const overlap of overlaps) {
    for (const [earlier, later] of overlap.examples) {
      for (const [example, owner] of [
        [earlier, overlap.first],
        [later, overlap.second],
      ] as const) {
        if (seen.has(`${owner}\u0000${example}`)) continue;
        seen.add(`${owner}\u0000${example}`);
        const routing = await route(example);
        if (!(routing.kind === 'agents' && routing.agents.length === 1 && routing.agents[0] === owner)) moves.push({ example, owner, routing });
      }
    }
  }
  return { routed: seen.size, moves };
}

const describeRouting = (routing: Routing): string =>
  routing.kind === 'none' ? 'no agent' : routing.kind === 'clarify' ? `a clarification between ${routing.agents.join(', ')}` : `${routing.agents.join(' and ')}${routing.agents.length > 1 ? ' (each of them is called)' : ''}`;

/** The lines `validate` prints after the warnings (empty when nothing moves). */
export function formatOverlapMoves(file: string, result: { routed: number; moves: readonly ExampleMove[] }): string[] {
  if (result.moves.length === 0) return [];
  const lines = [
    `warning: what replay would move: ${result.moves.length} of the ${result.routed} colliding examples no longer reach their own agent under ${file}:`,
    ...result.moves.slice(0, MAX_LISTED).map((move) => `  ${JSON.stringify(move.example)} (an example of ${move.owner}) → ${describeRouting(move.routing)}`),
    ...(result.moves.length > MAX_LISTED ? [`  and ${result.moves.length - MAX_LISTED} more`] : []),
    `  requests like these move with the edit; \`switchboard replay --config ${file}\` shows which recorded turns would`,
  ];
  return lines;
}
