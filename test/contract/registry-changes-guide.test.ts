/**
 * docs/registry-changes.md walked as a platform team would: every command of
 * its `sh` blocks runs, in the guide's order, from the directory of a store
 * filled by turns a real Switchboard served (test/support/replay-fixtures.ts);
 * the labelling step is done as the guide says (the out-of-scope weather
 * message labelled weather_agent); the `git show` line is the live file
 * written out. The report the guide prints for a careless keyword is the one
 * replay prints.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as evalCommand from '../../src/cli/eval-command.js';
import * as replay from '../../src/cli/replay-command.js';
import * as review from '../../src/cli/review-command.js';
import { runCliCommand, serveReplayTurns, type ServedStore } from '../support/replay-fixtures.js';
import { REPO_ROOT } from './harness.js';

const GUIDE = readFileSync(join(REPO_ROOT, 'docs/registry-changes.md'), 'utf8');
const COMMANDS = { review, replay, eval: evalCommand } as const;

/** The lines of every fenced block in the given language, in order. */
function blocks(language: string): string[][] {
  return [...GUIDE.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!.trim().split('\n'));
}

let served: ServedStore;
beforeAll(async () => {
  served = await serveReplayTurns();
}, 60_000);
afterAll(async () => {
  await served?.close();
});

it("runs every command of the guide, in order, on a served store; the guide's report of a careless keyword is replay's", async () => {
  const dir = served.board.dir;
  const env = { DATABASE_URL: `sqlite:${join(dir, 'switchboard.db')}` };
  const lines = blocks('sh').flat();
  expect(lines.length).toBeGreaterThanOrEqual(6);
  const ran: string[] = [];
  for (const line of lines) {
    if (line.startsWith('git show origin/main:agents_config.yaml > live.yaml')) {
      // The file on main is the one the store's turns were served with.
      writeFileSync(join(dir, 'live.yaml'), served.registry);
      continue;
    }
    const [program, name, ...args] = line.split(/\s+/u);
    expect(program, line).toBe('switchboard');
    const module = COMMANDS[name as keyof typeof COMMANDS];
    expect(module, line).toBeDefined();
    const result = await runCliCommand(module, args, { cwd: dir, env });
    expect(result.code, `${line}\n${result.stdout}\n${result.stderr}`).toBe(0);
    ran.push(`${name} ${args[0] ?? ''}`);
    if (line.includes('--out review.jsonl')) {
      // Step 2 of the guide, the labelling: the weather agent should have answered the umbrella question.
      const labelled = readFileSync(join(dir, 'review.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((text) => JSON.parse(text) as { query: string; agents: string[] })
        .map((entry) => (entry.query === '明天出门要带伞吗' ? { ...entry, agents: ['weather_agent'] } : entry));
      expect(labelled.map((entry) => entry.query)).toContain('明天出门要带伞吗');
      writeFileSync(join(dir, 'review.jsonl'), `${labelled.map((entry) => JSON.stringify(entry)).join('\n')}\n`);
    }
    if (name === 'replay') expect(result.stdout).toMatch(/none → \[weather_agent\]\s+×1/);
  }
  expect(ran).toEqual(['review --since', 'eval review.jsonl', 'review --apply', 'review --apply', 'replay --base']);
  expect(readFileSync(join(dir, 'agents_config.yaml'), 'utf8')).toContain('      - 明天出门要带伞吗\n');

  // The guide's careless keyword, and the lines of the report it shows.
  const careless = readFileSync(join(dir, 'agents_config.yaml'), 'utf8').replace('keywords: [机票, 航班, flight, plane]', 'keywords: [机票, 航班, flight, plane, 民宿]');
  writeFileSync(join(dir, 'careless.yaml'), careless);
  const result = await runCliCommand(replay, ['--base', 'agents_config.yaml', '--config', 'careless.yaml'], { cwd: dir, env });
  expect(result.code, result.stderr).toBe(0);
  const shown = blocks('text')[0]!;
  const printed = result.stdout.split('\n');
  for (const line of shown) expect(printed, line).toContain(line);
}, 60_000);
