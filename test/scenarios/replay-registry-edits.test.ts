/**
 * docs/registry-changes.md end to end: turns served by a real Switchboard are
 * stored; `review` writes the ones worth a label (out of scope, failed,
 * escalated), masked; a label applied with `review --apply` adds one example
 * to a commented registry and changes nothing else in the file; `replay`
 * then reports exactly the moves of two edits — the added example moves its
 * paraphrase from "none" to the weather agent, and a careless keyword on the
 * flight agent takes the hotel agent's two 民宿 turns — and fails the CI gate.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as replay from '../../src/cli/replay-command.js';
import * as review from '../../src/cli/review-command.js';
import { runCliCommand, serveReplayTurns, SERVED_TURNS, type ServedStore } from '../support/replay-fixtures.js';

let served: ServedStore;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  served = await serveReplayTurns();
  dir = served.board.dir;
  env = { DATABASE_URL: `sqlite:${join(dir, 'switchboard.db')}`, SWITCHBOARD_CONFIG: 'agents_config.yaml' };
}, 60_000);

afterAll(async () => {
  await served?.close();
});

interface Line {
  query: string;
  agents: string[];
  review: { why: string[]; routed: string[]; outcome?: string; turns: number; proposed: string };
}

it('review writes the turns worth a label; apply adds the label and keeps every comment; replay reports exactly the two edits', async () => {
  const reviewed = await runCliCommand(review, ['--since', '1d', '--out', 'review.jsonl'], { cwd: dir, env });
  expect(reviewed.code, reviewed.stderr).toBe(0);
  const lines = readFileSync(join(dir, 'review.jsonl'), 'utf8').trim().split('\n').map((text) => JSON.parse(text) as Line);
  const byQuery = new Map(lines.map((line) => [line.query, line]));
  // The greeting and the turns that were served well are not listed.
  expect([...byQuery.keys()].sort()).toEqual(['book a flight to Beijing', '明天出门要带伞吗'].sort());
  expect(byQuery.get('明天出门要带伞吗')).toMatchObject({ agents: [], review: { why: ['out_of_scope'], routed: [], proposed: 'routed', turns: 1 } });
  const failing = byQuery.get('book a flight to Beijing')!;
  expect(failing.agents).toEqual(['flight_agent']);
  expect(failing.review.turns).toBe(2);
  expect(failing.review.why.sort()).toEqual(['escalated', 'failed']);
  // Nothing personal leaves the store: the stored messages are masked, and the review reads only them.
  expect(JSON.stringify(lines)).not.toContain('13812345678');

  // The labeller's edit: the out-of-scope paraphrase belongs to the weather agent.
  byQuery.get('明天出门要带伞吗')!.agents = ['weather_agent'];
  writeFileSync(join(dir, 'review.jsonl'), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  writeFileSync(join(dir, 'live.yaml'), served.registry);

  const dry = await runCliCommand(review, ['--apply', 'review.jsonl', '--config', 'agents_config.yaml', '--dry-run'], { cwd: dir, env });
  expect(dry.code, dry.stderr).toBe(0);
  expect(dry.stdout).toContain('+      - 明天出门要带伞吗');
  expect(dry.stdout).not.toContain('replay:');
  expect(readFileSync(join(dir, 'agents_config.yaml'), 'utf8')).toBe(served.registry);

  const applied = await runCliCommand(review, ['--apply', 'review.jsonl', '--config', 'agents_config.yaml'], { cwd: dir, env });
  expect(applied.code, applied.stderr).toBe(0);
  const anchor = '      - is it going to rain in Shanghai this weekend   # English phrasing\n';
  const expected = served.registry.replace(anchor, `${anchor}      - 明天出门要带伞吗\n`);
  expect(readFileSync(join(dir, 'agents_config.yaml'), 'utf8')).toBe(expected);
  // Its replay came first: the one message the label was about moves.
  expect(applied.stdout).toMatch(/none → \[weather_agent\]\s+×1/);
  expect(applied.stdout).toContain('1 example(s) added to 1 agent(s)');

  // The careless edit on top: 民宿 as a flight keyword.
  const careless = expected.replace('keywords: [机票, 航班, flight, plane]', 'keywords: [机票, 航班, flight, plane, 民宿]');
  writeFileSync(join(dir, 'careless.yaml'), careless);
  const result = await runCliCommand(replay, ['--base', 'live.yaml', '--config', 'careless.yaml', '--json'], { cwd: dir, env });
  expect(result.code, result.stderr).toBe(0);
  const report = JSON.parse(result.stdout) as {
    turns: number;
    skipped: number;
    unchanged: number;
    share_unchanged: number;
    agents: { agent: string; gained: number; lost: number }[];
    changes: { query: string; before: { text: string }; after: { text: string }; marks: string[] }[];
  };
  expect(report.turns).toBe(SERVED_TURNS.length);
  expect(report.changes.map((change) => [change.query, change.before.text, change.after.text]).sort()).toEqual(
    [
      ['明天出门要带伞吗', 'none', '[weather_agent]'],
      ['有没有便宜的民宿', '[hotel_agent]', '[flight_agent]'],
      ['杭州的民宿推荐一个', '[hotel_agent]', '[flight_agent]'],
    ].sort(),
  );
  expect(report.agents).toEqual([
    { agent: 'flight_agent', gained: 2, lost: 0 },
    { agent: 'hotel_agent', gained: 0, lost: 2 },
    { agent: 'weather_agent', gained: 1, lost: 0 },
  ]);
  expect(report.unchanged).toBe(SERVED_TURNS.length - 3);

  // The CI gate: the same replay with --min-unchanged above the share fails, in text form too.
  const gated = await runCliCommand(replay, ['--base', 'live.yaml', '--config', 'careless.yaml', '--min-unchanged', '0.9'], { cwd: dir, env });
  expect(gated.code).toBe(1);
  expect(gated.stdout).toMatch(/unchanged\s+66\.7%\s+\(6\/9\)/);
  expect(gated.stdout).toMatch(/hotel_agent\s+\+0\s+-2/);
  expect(gated.stderr).toContain('below --min-unchanged 90.0%');
  // The live file against itself moves nothing.
  const same = await runCliCommand(replay, ['--base', 'live.yaml', '--config', 'live.yaml', '--min-unchanged', '1'], { cwd: dir, env });
  expect(same.code, same.stdout).toBe(0);
}, 60_000);

it('a clarification the user answered with `choose` becomes a line whose proposed label is the chosen agent', async () => {
  const asked = await served.board.chat('where can I stay in Suzhou', { sessionId: 'clarify-1' });
  const final = asked.find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true);
  const options = (final?.metadata as { clarification?: { options: { option_id: string; sub_agent_id: string }[] } } | undefined)?.clarification?.options;
  expect(options?.map((option) => option.sub_agent_id)).toContain('hotel_agent');
  const hotel = options!.find((option) => option.sub_agent_id === 'hotel_agent')!;
  const answer = await fetch(`${served.board.url}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ user_id: 'u1', session_id: 'clarify-1', choose: hotel.option_id }),
  });
  expect(answer.status).toBe(200);
  await answer.text();

  const reviewed = await runCliCommand(review, ['--since', '1d'], { cwd: dir, env });
  expect(reviewed.code, reviewed.stderr).toBe(0);
  const line = reviewed.stdout
    .trim()
    .split('\n')
    .map((text) => JSON.parse(text) as Line & { review: { clarification?: { chosen?: string } } })
    .find((entry) => entry.query === 'where can I stay in Suzhou');
  expect(line).toMatchObject({ agents: ['hotel_agent'], review: { why: ['clarification'], proposed: 'chosen', clarification: { chosen: 'hotel_agent' } } });
}, 60_000);
