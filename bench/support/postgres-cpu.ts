/**
 * CPU time of a database's backend processes, read from /proc/<pid>/stat of
 * every pid `pg_stat_activity` lists for the database (Postgres on this
 * machine; pg_stat_statements would need `shared_preload_libraries`). The
 * watcher's own connection is left out; backends that ended between two
 * reads lose their last ticks (connections are pooled, so few do).
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';

const TICK_MS = 10;

function backendTicks(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

export interface BackendCpu {
  /** CPU ms used so far by the database's backends (a running total; subtract two reads). */
  ms(): Promise<number>;
  close(): Promise<void>;
}

export async function postgresBackendCpu(databaseUrl: string): Promise<BackendCpu> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // Ticks of backends seen once are kept: a total that never goes back when one ends.
  const seen = new Map<number, number>();
  return {
    async ms() {
      const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
      for (const { pid } of rows) seen.set(pid, Math.max(seen.get(pid) ?? 0, backendTicks(pid)));
      let total = 0;
      for (const ticks of seen.values()) total += ticks;
      return total * TICK_MS;
    },
    close: () => client.end(),
  };
}
