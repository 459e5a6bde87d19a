/**
 * Every command and request in README.md and docs/*.md, run. Each `sh` block
 * is cut into commands and every command must be one of:
 *
 * - a request (`curl …`) sent to the demo started as the README says
 *   (`npm start`, on free ports), or a `validate` / `eval` run from the
 *   checkout: run here, and when a `text` block follows it, what that block
 *   shows is compared with what came back (`…` stands for what the page leaves
 *   out: in an event, members of an object or the rest of a string; in a line,
 *   any text);
 * - the typed-client generator: run against the demo, and the page's
 *   TypeScript then type-checks against what it generated under NodeNext;
 * - run by another test, named here (the file must exist), or not runnable
 *   here, with the reason.
 *
 * A command in the docs that none of these covers fails the test, naming the
 * page and line: a new example is run, or it says why not. Relative links of
 * every page must lead to a file.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoProcess } from './demo-process.js';
import { childEnv, REPO_ROOT } from './harness.js';

const run = promisify(execFile);

interface Block {
  readonly page: string;
  readonly line: number;
  readonly lang: string;
  readonly text: string;
  /** The `text` block right after this one (only blank lines between), if any. */
  readonly shown?: string;
}

interface Command {
  readonly page: string;
  readonly line: number;
  readonly text: string;
  readonly block: Block;
}

const PAGES = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

function blocksOf(page: string): Block[] {
  const lines = readFileSync(join(REPO_ROOT, page), 'utf8').split('\n');
  const blocks: { line: number; lang: string; text: string; end: number }[] = [];
  for (let at = 0; at < lines.length; at += 1) {
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[at]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let end = at + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) body.push(lines[end++]!.slice(indent));
    blocks.push({ line: at + 1, lang: open[2]!, text: body.join('\n'), end });
    at = end;
  }
  return blocks.map((block, index) => {
    const next = blocks[index + 1];
    const between = next ? lines.slice(block.end + 1, next.line - 1) : [];
    const shown = next && next.lang === 'text' && between.every((line) => line.trim() === '') ? next.text : undefined;
    return { page, line: block.line, lang: block.lang, text: block.text, ...(shown !== undefined ? { shown } : {}) };
  });
}

const BLOCKS = PAGES.flatMap(blocksOf);

/** The commands of a shell block: continuation lines joined, comments and blank lines dropped. */
function commandsOf(block: Block): Command[] {
  const commands: Command[] = [];
  const lines = block.text.split('\n');
  for (let at = 0; at < lines.length; at += 1) {
    const start = at;
    let text = lines[at]!;
    while (text.trimEnd().endsWith('\\') && at + 1 < lines.length) text = `${text.trimEnd().slice(0, -1)} ${lines[++at]!.trim()}`;
    text = text.replace(/\s{2,}#.*$/, '').trim();
    if (text === '' || text.startsWith('#')) continue;
    commands.push({ page: block.page, line: block.line + 1 + start, text, block });
  }
  return commands;
}

const COMMANDS = BLOCKS.filter((block) => ['sh', 'bash', 'shell'].includes(block.lang)).flatMap(commandsOf);

/** Commands run by another test, or not runnable here: what covers them, or why. */
const ELSEWHERE: readonly { match: RegExp; by?: string; reason?: string }[] = [
  { match: /^npm install && npm start$/, by: 'test/contract/docs-walk.test.ts (this file starts the demo with `npm start`)' },
  { match: /^npm install && npm test$/, by: '.ci/run' },
  { match: /^\(?cd packages\/agent-kit && npm pack\)?$|^npm init -y && npm pkg set type=module$|^npm install --offline --no-audit \/path\/to\/|^node my-agent\.mjs &$|^npx switchboard check-agent http:\/\/127\.0\.0\.1:7201\/invoke/, by: 'test/contract/onboarding-walk.test.ts' },
  { match: /^npm run cli -- check-agent my_hotel_agent --config agents_config\.yaml$/, by: 'src/cli/check-agent-command.test.ts', reason: 'needs the guide\'s agent running and registered; the same check by id runs on the demo\'s hotel agent' },
  { match: /^switchboard (review|eval|replay) |^git show origin\/main:agents_config\.yaml/, by: 'test/contract/registry-changes-guide.test.ts' },
  { match: /^export (LLM_|DATABASE_URL|REDIS_URL|SWITCHBOARD_CONFIG)/, reason: 'sets the environment for the next command' },
  { match: /^npm run cli -- serve$/, by: 'test/contract/llm-mode.test.ts', reason: 'needs a model endpoint; the test serves against a fake one' },
  { match: /^npx switchboard serve --port 8080$/, by: 'test/contract/serve-workers.int.test.ts', reason: 'needs the production PostgreSQL of the deploy guide' },
  { match: /^npm run build$/, by: 'test/contract/built-output.test.ts', reason: 'builds the package and serves a turn from it' },
  { match: /^pg_(dump|restore) /, reason: 'backs up and restores a production database' },
  { match: /^npm run cli -- demo --without weather$|^npx tsx demo\/agents\.ts --only weather$|^for city in |^curl -s localhost:8080\/v1\/chat .*city|^done$|^curl -s localhost:8080\/v1\/agents \| jq/, by: 'test/scenarios/circuit-breaker-and-stale-replies.test.ts', reason: 'a two-terminal walk-through (stop and start an agent by hand)' },
];

const elsewhere = (command: Command) => ELSEWHERE.find((rule) => rule.match.test(command.text));
const isRequest = (command: Command) => /^curl /.test(command.text);
const isLocal = (command: Command) => /^npm run cli -- (validate|eval) /.test(command.text);
const isClientGenerator = (command: Command) => /^npx openapi-typescript http:\/\/127\.0\.0\.1:8080\/openapi\.json -o \S+\.d\.ts$/.test(command.text);

/** A shown event line (`data: {…}`) as the object it promises: `…` members dropped, strings ending in `…` kept as prefixes. */
function promised(line: string): unknown {
  const json = line
    .replace(/^data: /, '')
    .replace(/,…(?=[}\]])/g, '')
    .replace(/\{…\}/g, '{}');
  return JSON.parse(json) as unknown;
}

/** Whether `actual` holds everything `shown` promises (objects: the members shown; strings ending in `…`: the prefix). */
function holds(shown: unknown, actual: unknown): boolean {
  if (typeof shown === 'string' && shown.endsWith('…') && typeof actual === 'string') return actual.startsWith(shown.slice(0, -1));
  if (Array.isArray(shown)) return Array.isArray(actual) && shown.length === actual.length && shown.every((item, index) => holds(item, actual[index]));
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object') return false;
    return Object.entries(shown).every(([key, value]) => holds(value, (actual as Record<string, unknown>)[key]));
  }
  return shown === actual;
}

/** Every shown line, in order, among the lines that came back (`…` = any text). */
function expectShownLines(shown: string, output: string, where: string): void {
  const actual = output.split('\n');
  let from = 0;
  for (const line of shown.split('\n').filter((text) => text.trim() !== '')) {
    const pattern = new RegExp(`^${line.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    const found = actual.findIndex((text, index) => index >= from && pattern.test(text));
    expect(found, `${where}: shown line not in the output:\n${line}\n--- output:\n${output}`).toBeGreaterThanOrEqual(0);
    from = found + 1;
  }
}

/** Every shown event, in order, among the events that came back. */
function expectShownEvents(shown: string, output: string, where: string): void {
  const events = output
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as unknown);
  let from = 0;
  for (const line of shown.split('\n').filter((text) => text.startsWith('data: '))) {
    const promise = promised(line);
    const found = events.findIndex((event, index) => index >= from && holds(promise, event));
    expect(found, `${where}: shown event not among the events, in order:\n${line}\n--- events:\n${events.map((event) => JSON.stringify(event)).join('\n')}`).toBeGreaterThanOrEqual(0);
    from = found + 1;
  }
}

/** Runs a shell command; resolves with its output and exit code. */
async function shell(command: string, env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run('bash', ['-c', command], { cwd: REPO_ROOT, env: childEnv(env), maxBuffer: 16 * 1024 * 1024, timeout: 120_000 });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, out: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('every command in README.md and docs/ is covered', () => {
  it('finds the pages and their commands', () => {
    expect(PAGES).toContain('README.md');
    expect(COMMANDS.filter((command) => command.page === 'README.md').map((command) => command.text)).toEqual(
      expect.arrayContaining(['npm install && npm start', 'npm install && npm test']),
    );
  });

  it('runs each command here or names the test that does (or why it cannot run)', () => {
    const uncovered = COMMANDS.filter((command) => !isRequest(command) && !isLocal(command) && !isClientGenerator(command) && !elsewhere(command));
    expect(uncovered.map((command) => `${command.page}:${command.line}: ${command.text}`)).toEqual([]);
    for (const rule of ELSEWHERE) {
      const by = rule.by?.split(' ')[0];
      if (by) expect(existsSync(join(REPO_ROOT, by)), by).toBe(true);
      expect(rule.by ?? rule.reason).toBeTruthy();
    }
  });

  it('gives every eval example a floor (--min), so a regression fails the command', () => {
    const evals = COMMANDS.filter((command) => /^npm run cli -- eval /.test(command.text));
    expect(evals.length).toBeGreaterThan(0);
    for (const command of evals) expect(command.text, `${command.page}:${command.line}`).toMatch(/ --min \d/);
  });

  it('has no relative link to a missing file', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(join(REPO_ROOT, page), 'utf8');
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1]!;
        if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
        if (!existsSync(normalize(join(REPO_ROOT, dirname(page), target.split('#')[0]!)))) broken.push(`${page}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the documented commands, run', () => {
  let demo: DemoProcess;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-docs-walk-'));
    demo = await startDemo(['--port', '0', '--agent-ports', '0'], { DEMO_AGENT_LATENCY_MS: '0' }, 60_000);
  }, 90_000);
  afterAll(async () => {
    await demo?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers every documented request as the page shows', async () => {
    const requests = COMMANDS.filter(isRequest).filter((command) => !elsewhere(command));
    expect(requests.length).toBeGreaterThan(0);
    for (const command of requests) {
      const where = `${command.page}:${command.line}`;
      const text = command.text.replace(/http:\/\/(127\.0\.0\.1|localhost):8080/g, demo.url);
      const result = await shell(text.startsWith('curl -N') ? text.replace(/^curl -N/, 'curl -sN') : text);
      expect(result.code, `${where}: ${text}\n${result.out}`).toBe(0);
      if (command.block.shown === undefined) continue;
      if (/^data: /m.test(command.block.shown)) expectShownEvents(command.block.shown, result.out, where);
      else expectShownLines(command.block.shown, result.out, where);
    }
  }, 120_000);

  it('runs the documented validate and eval commands to exit 0, with the output shown', async () => {
    const local = COMMANDS.filter(isLocal);
    expect(local.length).toBeGreaterThan(0);
    for (const command of local) {
      const where = `${command.page}:${command.line}`;
      const result = await shell(command.text.replace(/^npm run cli --/, 'npm run --silent cli --'));
      expect(result.code, `${where}: ${command.text}\n${result.out}`).toBe(0);
      if (command.block.shown !== undefined) expectShownLines(command.block.shown, result.out, where);
    }
  }, 180_000);

  it('generates the typed client from the running demo, and the page\'s TypeScript compiles with it under NodeNext', async () => {
    const generators = COMMANDS.filter(isClientGenerator);
    expect(generators.length).toBeGreaterThan(0);
    for (const command of generators) {
      const output = /-o (\S+)$/.exec(command.text)![1]!;
      const result = await shell(`cd '${dir}' && ${command.text.replace('http://127.0.0.1:8080', demo.url).replace(/^npx /, `'${REPO_ROOT}/node_modules/.bin/'`)}`);
      expect(result.code, result.out).toBe(0);
      expect(existsSync(join(dir, output))).toBe(true);
      // The TypeScript block that follows the command on the page, as a module of a NodeNext project.
      const index = BLOCKS.indexOf(command.block);
      const code = BLOCKS.slice(index + 1).find((block) => block.page === command.page && block.lang === 'ts');
      expect(code, `${command.page}: no ts block after ${command.text}`).toBeDefined();
      writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
      writeFileSync(join(dir, 'client.ts'), `declare const response: Response;\n${code!.text}\nexport {};\n`);
      const program = ts.createProgram([join(dir, 'client.ts')], {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        strict: true,
        noEmit: true,
        noUnusedLocals: false,
        types: [],
      });
      const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      expect(problems, `${code!.page}:${code!.line}`).toEqual([]);
    }
  }, 120_000);
});
