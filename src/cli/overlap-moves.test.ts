import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadRegistryText } from '../registry/index.js';
import { formatOverlapMoves, overlapMoves } from './overlap-moves.js';

const DEMO = readFileSync(new URL('../../agents_config.yaml', import.meta.url), 'utf8');
const GUIDE = readFileSync(new URL('../../docs/onboard-an-agent.md', import.meta.url), 'utf8');

/** The registry entry docs/onboard-an-agent.md tells a newcomer to add. */
function guideEntry(): string {
  const at = GUIDE.indexOf('  - id: my_hotel_agent');
  return GUIDE.slice(at, GUIDE.indexOf('```', at));
}

function snapshotOf(text: string) {
  const result = loadRegistryText(text, 'agents_config.yaml', { env: {} });
  if (!result.ok) throw new Error(result.issues.map((issue) => issue.message).join('; '));
  return result.snapshot;
}

describe('what validate says replay would move', () => {
  it('routes the colliding examples of the guide card beside the demo hotel agent and lists those that leave their own agent', async () => {
    const result = await overlapMoves(snapshotOf(DEMO.replace(/\nagents:\n/, `\nagents:\n${guideEntry()}`)));
    expect(result.routed).toBe(2);
    // The same sentence is an example of both: it can no longer reach only one of them.
    expect(result.moves.map((move) => move.owner).sort()).toEqual(['hotel_agent', 'my_hotel_agent']);
    for (const move of result.moves) expect(move.routing.agents).toContain(move.owner === 'hotel_agent' ? 'my_hotel_agent' : 'hotel_agent');
    const lines = formatOverlapMoves('agents_config.yaml', result);
    expect(lines[0]).toBe('warning: what replay would move: 2 of the 2 colliding examples no longer reach their own agent under agents_config.yaml:');
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}"帮我订北京的酒店" \(an example of hotel_agent\) → /u));
    expect(lines.at(-1)).toContain('switchboard replay --config agents_config.yaml');
  });

  it('says nothing for a registry whose agents do not overlap', async () => {
    const result = await overlapMoves(snapshotOf(DEMO));
    expect(result).toEqual({ routed: 0, moves: [] });
    expect(formatOverlapMoves('agents_config.yaml', result)).toEqual([]);
  });

  it('names an example written under the wrong agent: it goes to the agent it reads like', async () => {
    // A weather question added to the flight agent's examples collides with the weather agent's.
    const text = DEMO.replace('      - 查一下明天从北京到上海的机票\n', '      - 查一下明天从北京到上海的机票\n      - 北京明天天气怎么样？\n');
    const result = await overlapMoves(snapshotOf(text));
    expect(result.routed).toBe(2);
    expect(result.moves).toEqual([{ example: '北京明天天气怎么样？', owner: 'flight_agent', routing: { kind: 'agents', agents: ['weather_agent'] } }]);
    expect(formatOverlapMoves('agents_config.yaml', result)[1]).toBe('  "北京明天天气怎么样？" (an example of flight_agent) → weather_agent');
  });
});
