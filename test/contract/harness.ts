/**
 * Black-box helpers for the contract tests: start the real CLI as a child
 * process (`serve --config F --port 0`), speak plain HTTP to it, read SSE
 * streams byte for byte, and check every event against docs/api.md#events.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';

/** The repository root (the child runs from here). */
export const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** A running `switchboard serve` child process. */
export interface ServerProcess {
  url: string;
  dir: string;
  configPath: string;
  child: ChildProcess;
  /** Everything the child wrote so far (stdout + stderr). */
  output(): string;
  /**
   * SIGTERM, then wait for the exit; resolves with the exit code (SIGKILL after 8 s).
   * Started through npm, the signal goes to the whole process group, as a terminal sends it.
   */
  stop(): Promise<number | null>;
}

/** Environment variables the child must never inherit from the test runner. */
const SCRUBBED = ['LLM_BASE_URL', 'LLM_API_KEY', 'LLM_MODEL', 'LLM_SMALL_MODEL', 'SWITCHBOARD_API_KEYS', 'SWITCHBOARD_CONFIG', 'PORT', 'DATABASE_URL', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID', 'LOG_LEVEL'];

/** Builds the child's environment: the runner's, minus product settings, plus `extra`. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SCRUBBED) delete env[name];
  return { ...env, ...extra };
}

/** What a finished command printed and its exit code (null when it was killed at the time limit). */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they arrived. */
  all: string;
}

/** Runs a command from the repository root to its end; killed after `timeoutMs` (default 45 s, generous for a loaded CI machine). */
export function runCommand(command: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 45_000): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const result: CommandResult = { code: null, stdout: '', stderr: '', all: '' };
    child.stdout.on('data', (chunk: Buffer) => {
      result.stdout += chunk.toString('utf8');
      result.all += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      result.stderr += chunk.toString('utf8');
      result.all += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ ...result, code });
    });
  });
}

/** Starts `switchboard serve` on a temp registry and SQLite file; resolves once `/healthz` answers. */
export async function spawnServer(options: {
  registryYaml: string;
  env?: Record<string, string>;
  /** Start through `npm run cli -- serve` instead of node directly. */
  viaNpm?: boolean;
  /** How long to wait for "listening" (default 15 s; a busy machine needs more). */
  startTimeoutMs?: number;
  /** More `serve` flags (e.g. `--workers 2`). */
  args?: readonly string[];
  /**
   * A JavaScript entry (a built package's `bin/switchboard.js`) run with plain node from the
   * temp folder, instead of the TypeScript sources through tsx from the repository root.
   */
  entry?: string;
}): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-contract-'));
  const configPath = join(dir, 'agents_config.yaml');
  writeFileSync(configPath, options.registryYaml);
  const env = childEnv({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, LOG_LEVEL: 'debug', ...options.env });
  const args = ['serve', '--config', configPath, '--port', '0', ...(options.args ?? [])];
  const child = options.viaNpm
    ? spawn('npm', ['run', '--silent', 'cli', '--', ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    : options.entry
      ? spawn(process.execPath, [options.entry, ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));

  const url = await new Promise<string>((resolveUrl, reject) => {
    const startTimeoutMs = options.startTimeoutMs ?? 15000;
    const timer = setTimeout(() => reject(new Error(`server did not start in ${startTimeoutMs / 1000} s:\n${text}`)), startTimeoutMs);
    const check = () => {
      const match = /Switchboard listening on (http:\/\/\S+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    };
    // The "listening" line goes to stderr (stdout carries only JSON log lines).
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${text}`));
    });
  });
  for (let attempt = 0; ; attempt++) {
    const ok = await fetch(`${url}/healthz`).then((response) => response.ok, () => false);
    if (ok) break;
    if (attempt > 50) throw new Error(`/healthz never answered:\n${text}`);
    await sleep(100);
  }
  let stopping: Promise<number | null> | undefined;
  return {
    url,
    dir,
    configPath,
    child,
    output: () => text,
    stop() {
      stopping ??= (async () => {
        const signal = (name: NodeJS.Signals) => {
          try {
            if (options.viaNpm) process.kill(-child.pid!, name);
            else child.kill(name);
          } catch {
            // Already gone.
          }
        };
        signal('SIGTERM');
        const killer = setTimeout(() => signal('SIGKILL'), 8000);
        const code = await exited;
        if (options.viaNpm) await waitUntilGone(child.pid!);
        clearTimeout(killer);
        rmSync(dir, { recursive: true, force: true });
        return code;
      })();
      return stopping;
    },
  };
}

/** Resolves once no process of the group led by `pid` is left (the group is killed after 8 s). */
async function waitUntilGone(pid: number): Promise<void> {
  for (let waited = 0; waited < 10000; waited += 100) {
    try {
      process.kill(-pid, 0);
    } catch {
      return;
    }
    await sleep(100);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
}

/** A free TCP port on 127.0.0.1 (listen on 0, close). Nothing listens there afterwards. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', () => resolveListen()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  return port;
}

/** One ResponseState as the contract describes it. */
export interface ContractEvent {
  type: string;
  content: string;
  agent_id: string;
  is_thinking: boolean;
  session_id: string;
  metadata: {
    stage: string;
    semantic_info?: { type: string; sub_agent_id: string; keys: string[]; key_descriptions: string[]; fe_widgets_suggestion: string[] }[];
    state?: Record<string, unknown>;
    [field: string]: unknown;
  };
}

/** What one `POST /v1/chat` returned over SSE. */
export interface SseTurn {
  status: number;
  headers: Headers;
  raw: string;
  events: ContractEvent[];
}

/** Posts a turn and reads the whole SSE body; events are parsed from `data:` lines. */
export async function chatSse(
  baseUrl: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<SseTurn> {
  const response = await fetch(`${baseUrl}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const raw = await response.text();
  const events: ContractEvent[] = [];
  if (response.ok && (response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    for (const frame of raw.split('\n\n')) {
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''));
      if (data.length > 0) events.push(JSON.parse(data.join('\n')) as ContractEvent);
    }
  }
  return { status: response.status, headers: response.headers, raw, events };
}

/** A turn that must succeed: asserts 200 SSE and the whole-stream contract, returns the events. */
export async function turn(
  baseUrl: string,
  body: Record<string, unknown>,
  agentIds: readonly string[],
  headers: Record<string, string> = {},
): Promise<ContractEvent[]> {
  const result = await chatSse(baseUrl, body, headers);
  expect(result.status, result.raw).toBe(200);
  expect(result.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expectValidStream(result.events, agentIds);
  return result.events;
}

const STAGE_RANK: Record<string, number> = {
  intent_start: 0,
  intent_done: 1,
  plan_start: 2,
  plan_done: 3,
  agent_start: 4,
  agent_stream: 4,
  agent_done: 4,
  agent_failed: 4,
  // The verify step may re-send tasks, so its stages share the agents' rank.
  verify_start: 4,
  verify_done: 4,
  summarize_start: 5,
  final: 6,
  escalate: 6,
};

/** Checks every event's fields and types, stage order, the table of is_thinking / agent_id, one trailing done, no ids in content. */
export function expectValidStream(events: readonly ContractEvent[], agentIds: readonly string[]): void {
  expect(events.length).toBeGreaterThan(1);
  const sessionId = events[0]!.session_id;
  let lastRank = -1;
  events.forEach((event, index) => {
    const where = `event ${index} ${JSON.stringify(event).slice(0, 300)}`;
    expect(['content', 'done'], where).toContain(event.type);
    expect(typeof event.content, where).toBe('string');
    expect(typeof event.agent_id, where).toBe('string');
    expect(typeof event.is_thinking, where).toBe('boolean');
    expect(typeof event.session_id, where).toBe('string');
    expect(event.session_id, where).toBe(sessionId);
    expect(typeof event.metadata, where).toBe('object');
    expect(typeof event.metadata.stage, where).toBe('string');
    for (const id of agentIds) expect(event.content, `${where}: content names agent id ${id}`).not.toContain(id);
    if (event.metadata.semantic_info !== undefined) expectSemanticInfoShape(event.metadata.semantic_info);
    if (event.type === 'done') {
      expect(index, 'done must be the last event').toBe(events.length - 1);
      return;
    }
    const stage = event.metadata.stage;
    const rank = STAGE_RANK[stage];
    expect(rank, `${where}: unknown stage`).toBeDefined();
    expect(rank!, `${where}: stage out of order`).toBeGreaterThanOrEqual(lastRank);
    lastRank = rank!;
    switch (stage) {
      case 'intent_start':
      case 'intent_done':
      case 'plan_start':
      case 'plan_done':
      case 'verify_start':
      case 'verify_done':
        expect(event.is_thinking, where).toBe(true);
        expect(event.agent_id, where).toBe('supervisor');
        break;
      case 'agent_start':
      case 'agent_stream':
      case 'agent_done':
      case 'agent_failed':
        expect(event.is_thinking, where).toBe(true);
        expect(agentIds, where).toContain(event.agent_id);
        break;
      case 'summarize_start':
        expect(event.is_thinking, where).toBe(true);
        expect(event.agent_id, where).toBe('summarize');
        break;
      case 'final':
        expect(event.is_thinking, where).toBe(false);
        expect(['summarize', 'supervisor'], where).toContain(event.agent_id);
        break;
      case 'escalate':
        expect(event.is_thinking, where).toBe(false);
        expect(event.agent_id, where).toBe('supervisor');
        break;
    }
  });
  expect(events.filter((event) => event.type === 'done')).toHaveLength(1);
  expect(events.at(-1)!.type).toBe('done');
  expect(events.some((event) => event.metadata.stage === 'final' || event.metadata.stage === 'escalate')).toBe(true);
}

/** Arrays index-aligned, strings only, type miss | invalid. */
export function expectSemanticInfoShape(info: unknown): void {
  expect(Array.isArray(info)).toBe(true);
  for (const entry of info as ContractEvent['metadata']['semantic_info'] & object) {
    expect(['miss', 'invalid']).toContain(entry.type);
    expect(typeof entry.sub_agent_id).toBe('string');
    expect(entry.keys.length).toBeGreaterThan(0);
    expect(entry.key_descriptions).toHaveLength(entry.keys.length);
    expect(entry.fe_widgets_suggestion).toHaveLength(entry.keys.length);
    for (const value of [...entry.keys, ...entry.key_descriptions, ...entry.fe_widgets_suggestion]) expect(typeof value).toBe('string');
  }
}

/** Events of one stage. */
export function stage(events: readonly ContractEvent[], name: string): ContractEvent[] {
  return events.filter((event) => event.metadata.stage === name);
}

/** The last `final` event (the complete answer). */
export function finalOf(events: readonly ContractEvent[]): ContractEvent {
  const finals = stage(events, 'final');
  expect(finals.length, `no final in ${events.map((event) => event.metadata.stage).join(',')}`).toBeGreaterThan(0);
  return finals.at(-1)!;
}

/** A small node:http server for tests; the handler gets the parsed body. */
export interface TestHttpServer {
  url: string;
  close(): Promise<void>;
}

export async function startHttpServer(
  handler: (request: IncomingMessage, body: string, response: ServerResponse) => void | Promise<void>,
): Promise<TestHttpServer> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      Promise.resolve(handler(request, Buffer.concat(chunks).toString('utf8'), response)).catch(() => {
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', () => resolveListen()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}
