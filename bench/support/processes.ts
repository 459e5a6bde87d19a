/**
 * Child processes of the load benches: start one, wait for the line it prints
 * when ready, read its CPU time (with all its descendants) from /proc, stop it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface BenchProcess {
  child: ChildProcess;
  /** The first stdout or stderr line that matched `ready`. */
  readyLine: string;
  /** CPU time (user + system) of the process and every descendant, ms. */
  cpuMs(): number;
  /** Its last lines of output (stdout and stderr). */
  recentOutput(): string;
  stop(): Promise<void>;
}

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of one pid and its parent pid, from /proc/<pid>/stat. */
function readStat(pid: number): { ppid: number; ticks: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces; the fields after its closing parenthesis do not.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/** CPU ms of `root` and all its live descendants. */
export function treeCpuMs(root: number): number {
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const stat = readStat(pid);
    if (!stat) continue;
    ticks.set(pid, stat.ticks);
    const list = children.get(stat.ppid) ?? [];
    list.push(pid);
    children.set(stat.ppid, list);
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += ticks.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return (total * 1000) / TICKS_PER_SECOND;
}

/** Starts `node --import tsx <script> ...args` (plain `node` for a built `.js`) and waits for a line matching `ready`. */
export async function startNodeProcess(script: string, args: string[], ready: RegExp, env: Record<string, string | undefined> = {}, timeoutMs = 60_000, nodeArgs: string[] = []): Promise<BenchProcess> {
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...nodeArgs, ...loader, script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const seen: string[] = [];
  const readyLine = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} not ready in ${timeoutMs} ms:\n${seen.join('\n')}`)), timeoutMs);
    const watch = (stream: NodeJS.ReadableStream) => {
      const lines = createInterface({ input: stream });
      lines.on('line', (line) => {
        seen.push(line);
        if (seen.length > 50) seen.shift();
        if (ready.test(line)) {
          clearTimeout(timer);
          resolve(line);
        }
      });
    };
    watch(child.stdout!);
    watch(child.stderr!);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code}) before it was ready:\n${seen.join('\n')}`));
    });
  });
  // Its output keeps being read (so it never blocks on a full pipe); the last lines are kept for errors.
  return {
    child,
    readyLine,
    cpuMs: () => treeCpuMs(child.pid!),
    recentOutput: () => seen.join('\n'),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
