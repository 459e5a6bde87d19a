/**
 * CPU time of a database's backend processes (Postgres on this machine; no
 * pg_stat_statements, which needs `shared_preload_libraries`): for every pid
 * `pg_stat_activity` lists for the database, the time it ran on a CPU, in
 * nanoseconds from /proc/<pid>/schedstat, or in 10 ms ticks from
 * /proc/<pid>/stat where the kernel has no schedstat. The watcher's own
 * connection is left out; backends that ended between two reads lose their
 * last share (connections are pooled, so few do).
 *
 * `backendCpuMs(pid)` reads one backend: a statement's CPU is the difference
 * around it on its connection (the backend is idle before and after it).
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';

const TICK_MS = 10;

/** CPU ms a process has used so far (0 when it is gone). */
export function backendCpuMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch {
      return 0;
    }
  }
}

export interface BackendCpu {
  /** CPU ms used so far by the database's backends (a running total; subtract two reads). */
  ms(): Promise<number>;
  /** How many backends of the database have been seen so far (reads them). */
  backends(): Promise<number>;
  close(): Promise<void>;
}

export async function postgresBackendCpu(databaseUrl: string): Promise<BackendCpu> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // What backends seen once used is kept: a total that never goes back when one ends.
  const seen = new Map<number, number>();
  const read = async () => {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    for (const { pid } of rows) seen.set(pid, Math.max(seen.get(pid) ?? 0, backendCpuMs(pid)));
  };
  return {
    async ms() {
      await read();
      let total = 0;
      for (const ms of seen.values()) total += ms;
      return total;
    },
    async backends() {
      await read();
      return seen.size;
    },
    close: () => client.end(),
  };
}
