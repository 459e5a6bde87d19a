/**
 * `npm start` (the demo: sub-agents, A2A agent, supervisor and chat page) as a
 * child process for the contract tests, on ports it is told to take, with its
 * own SQLite file; resolves once the banner names the page and `/healthz`
 * answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv, REPO_ROOT, sleep } from './harness.js';

/** A running demo. */
export interface DemoProcess {
  /** The supervisor's base URL (`http://127.0.0.1:PORT`). */
  url: string;
  /** Everything the demo wrote so far (stdout + stderr). */
  output(): string;
  /** Stops the whole process group started by npm. */
  stop(): Promise<void>;
}

/** Starts `npm start -- ARGS` with `env`; rejects with its output when it exits or does not start in time. */
export async function startDemo(args: readonly string[], env: Record<string, string> = {}, startTimeoutMs = 30_000): Promise<DemoProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-demo-'));
  const child: ChildProcess = spawn('npm', ['start', '--silent', '--', ...args], {
    cwd: REPO_ROOT,
    env: childEnv({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, DEMO_AGENT_LATENCY_MS: '0', LOG_LEVEL: 'warn', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  let gone = false;
  void exited.then(() => (gone = true));
  const stop = async () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // Already gone.
    }
    const killer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, 8000);
    await exited;
    clearTimeout(killer);
    rmSync(dir, { recursive: true, force: true });
  };
  for (let waited = 0; ; waited += 100) {
    const match = /Switchboard demo is running: open (http:\/\/\S+?)\/ in a browser/.exec(text);
    if (match) {
      const url = match[1]!;
      const ok = await fetch(`${url}/healthz`).then((response) => response.ok, () => false);
      if (ok) return { url, output: () => text, stop };
    }
    if (gone || waited > startTimeoutMs) {
      await stop();
      throw new Error(`demo did not start (${gone ? 'it exited' : 'timed out'}):\n${text}`);
    }
    await sleep(100);
  }
}
